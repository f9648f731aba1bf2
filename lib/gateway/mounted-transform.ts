/**
 * Transformed mounted tools: `server.mount(upstream, { transform: { <upstream tool>: {...} } })`,
 * the same transformation as `transformTool` (tools/argument-mapping.ts), applied where the
 * upstream's tools are published.
 *
 * Why a mount option and not a function over a mounted tool: a mounted tool is an exact (sealed)
 * registration (tools/exact-tool.ts), which only the gateway can make. Keeping the transformation
 * inside the mount keeps that rule whole: the gateway alone still decides what is published
 * exactly, and no handler ever holds an exact registration it could copy or re-register.
 *
 * - Without a custom `handler` the tool stays exact: published with the upstream's descriptor
 *   under the derived face (name, title, description, the derived inputSchema), its call's
 *   arguments mapped back to the upstream's names (renames undone, defaults filled, hidden values
 *   set) and sent on; the upstream still validates them, and its answer, errors included, passes
 *   through as it is. A withdrawn name (renamed away, hidden) is refused here, as a tool error
 *   worded like weft's refusal of a local tool's arguments.
 * - With a custom `handler(args, ctx, forward)` the tool is weft's own: an ordinary inline tool
 *   (its arguments checked against the derived schema, its result shaped and checked like any
 *   other), whose `forward(args)` sends the mapped call to the upstream with what remains of the
 *   call's deadline, cancelled with `ctx.signal`, its progress and logs relayed through `ctx`. An
 *   upstream question during `forward` is asked through `ctx.elicit` / `ctx.sample` / `ctx.roots`
 *   (live in a legacy request; in a 2026-07-28 request as a round, the handler running again with
 *   the answer on the retry, which calls the upstream again).
 *
 * The checks that need no schema (options, a hidden argument's default) run when `mount` is
 * called and fail it; those that need the upstream's schema (an argument it does not have) run
 * when the tool is listed, and leave that one tool unpublished with a logged error.
 */
import { principalKey } from '../auth/principal.js';
import {
  type ArgumentTransform,
  checkArgumentTransforms,
  deriveArguments,
} from '../tools/argument-mapping.js';
import { EXACT_SEAL, type ExactCall, type ExactCallRequest } from '../tools/exact-tool.js';
import type { ToolDescriptor } from '../tools/registered-tool.js';
import { CallAbandonedError, type LogLevel, type ToolContext } from '../tools/tool-context.js';
import type { ToolDefinition } from '../tools/tool-definition.js';
import type { ToolRegistry } from '../tools/tool-registry.js';
import { checkTransformOptions, type ToolTransform } from '../tools/transform-tool.js';

/** Transformations keyed by the upstream's tool names (before any namespace). */
export type MountTransforms = Readonly<Record<string, ToolTransform>>;

/** Refuses a malformed `transform` option when `server.mount` is called. */
export function checkMountTransforms(transforms: unknown): void {
  if (transforms === undefined) return;
  if (typeof transforms !== 'object' || transforms === null || Array.isArray(transforms)) {
    throw new TypeError('server.mount: transform must be an object keyed by the upstream tool names');
  }
  for (const [name, transform] of Object.entries(transforms)) {
    const fail = (message: string): never => {
      throw new TypeError(`server.mount: transform.${name}: ${message}`);
    };
    checkTransformOptions(transform, fail);
    checkArgumentTransforms((transform as ToolTransform).args, fail);
  }
}

/** The name an upstream tool is published under. */
export function publishedName(
  upstreamName: string,
  prefix: string,
  transform: ToolTransform | undefined,
): string {
  return `${prefix}${transform?.name ?? upstreamName}`;
}

/**
 * Registers one upstream tool: exact as it is, exact under a derived face, or (a custom handler)
 * as an ordinary tool that forwards. `descriptor` carries the published name already.
 */
export function publishMountedTool(
  registry: ToolRegistry,
  descriptor: ToolDescriptor,
  call: ExactCall,
  transform: ToolTransform | undefined,
): void {
  if (transform === undefined) {
    registry.addExact(EXACT_SEAL, { descriptor, call });
    return;
  }
  const fail = (message: string): never => {
    throw new TypeError(`Mounted tool "${descriptor.name}": transform: ${message}`);
  };
  const derived = deriveArguments(descriptor.inputSchema ?? {}, transform.args, fail);
  const face: ToolDescriptor = { ...descriptor, inputSchema: derived.inputSchema };
  if (transform.title !== undefined) face.title = transform.title;
  if (transform.description !== undefined) face.description = transform.description;
  const mapArguments = (args: unknown) =>
    typeof args === 'object' && args !== null && !Array.isArray(args)
      ? derived.map(args as Record<string, unknown>)
      : ({ ok: false, problem: 'arguments must be a JSON object' } as const);

  if (transform.handler === undefined) {
    registry.addExact(EXACT_SEAL, {
      descriptor: face,
      ...(transform.tags ? { tags: transform.tags } : {}),
      call: async (request) => {
        const mapped = mapArguments(request.params.arguments ?? {});
        if (!mapped.ok) {
          // Worded and shaped as weft refuses a local tool's arguments: a tool error the model reads.
          const text = `Invalid arguments for tool "${face.name}": ${mapped.problem}`;
          return { kind: 'result', result: { content: [{ type: 'text', text }], isError: true } };
        }
        return call({ ...request, params: { ...request.params, arguments: mapped.value } });
      },
    });
    return;
  }

  const custom = transform.handler;
  const forwardFrom = (ctx: ToolContext) => async (args: Record<string, unknown>) => {
    const mapped = mapArguments(args ?? {});
    if (!mapped.ok) throw new TypeError(`forward to the upstream's "${descriptor.name}": ${mapped.problem}`);
    const answer = await call(requestFrom(ctx, mapped.value as Record<string, unknown>));
    switch (answer.kind) {
      case 'result':
        return answer.result;
      case 'error':
        throw Object.assign(new Error(`the upstream answered ${answer.code}: ${answer.message}`), {
          code: answer.code,
          data: answer.data,
        });
      case 'cancelled':
        throw new CallAbandonedError('cancelled');
      case 'input-required':
        throw new Error('the upstream asked for input that could not be relayed');
    }
  };
  const definition: Record<string, unknown> = {
    name: face.name,
    inputSchema: face.inputSchema,
    handler: (args: Record<string, unknown>, ctx: ToolContext) => custom(args, ctx, forwardFrom(ctx)),
  };
  for (const key of ['title', 'description', 'outputSchema', 'annotations', 'icons'] as const) {
    if (face[key] !== undefined) definition[key] = face[key];
  }
  if (transform.tags) definition.tags = transform.tags;
  registry.add(definition as unknown as ToolDefinition<never, never>);
}

/**
 * The exact call a custom handler's `forward` makes: the upstream is asked as a legacy request
 * asks, live through `ask`, which here goes through the handler's own ctx (see the header).
 */
function requestFrom(ctx: ToolContext, args: Record<string, unknown>): ExactCallRequest {
  const ask = async (method: string, params: Record<string, unknown>): Promise<unknown> => {
    const missing = () => new Error(`this call cannot ask the client ${method}`);
    switch (method) {
      case 'elicitation/create':
        if (!ctx.elicit) throw missing();
        return ctx.elicit(params as never);
      case 'sampling/createMessage':
        if (!ctx.sample) throw missing();
        return ctx.sample(params as never);
      case 'roots/list':
        if (!ctx.roots) throw missing();
        return ctx.roots();
      default:
        throw missing();
    }
  };
  return {
    // A progress token of the gateway's own, so that the upstream's progress is relayed to ctx.
    params: { arguments: args, _meta: { progressToken: 'weft-forward' } },
    signal: ctx.signal,
    budgetMs: ctx.deadline === undefined ? 0 : Math.max(1, ctx.deadline - Date.now()),
    era: 'legacy',
    progress: (progress) =>
      ctx.progress(
        progress.progress as number,
        progress.total as number | undefined,
        progress.message as string | undefined,
      ),
    log: ({ level, data }) => ctx.log(level as LogLevel, data),
    ask: (method, params) => ask(method, params),
    // What the handler's ctx can answer is what the upstream may ask.
    clientCapabilities: {
      ...(ctx.elicit ? { elicitation: {} } : {}),
      ...(ctx.sample ? { sampling: {} } : {}),
      ...(ctx.roots ? { roots: {} } : {}),
    },
    principal: ctx.auth === undefined ? undefined : principalKey(ctx.auth),
    // A forwarded call is a plain call, never a task: no session owns anything upstream.
    session: 'weft-forward',
  };
}

export type { ArgumentTransform };
