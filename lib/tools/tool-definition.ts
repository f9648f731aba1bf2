/**
 * What a user writes to define a tool, typed so that the handler's arguments are inferred from the
 * input schema (written `as const`, or inline thanks to `const` type parameters).
 *
 * A blocking tool is defined in a module of its own that names itself (`module: import.meta.url`):
 * the server imports the definition for its schema and options, the pool worker imports the very
 * same module for its handler. One definition, used by both sides, so they cannot drift apart.
 *
 * This file must stay light: pool workers load it with every tool module.
 */

import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { Principal } from '../auth/principal.js';
import type { CallToolResult } from './content.js';
import type { LimitsOption } from './per-caller-limits.js';
import type { InferInput, InferOutput, StandardSchemaV1 } from './standard-schema.js';
import type { ToolContext } from './tool-context.js';
import type { ToolUi } from './tool-ui.js';

/** An object JSON Schema (2020-12 is the default dialect); every keyword is kept when published. */
export type ObjectSchema = Exclude<JSONSchema, boolean> & { readonly type: 'object' };

/**
 * A tool's schema: a JSON Schema object, or any Standard Schema that can give one (zod 4, valibot,
 * ArkType...), converted for `tools/list` and validated by its own library.
 */
export type ToolSchema = ObjectSchema | StandardSchemaV1;

/**
 * The argument type a schema describes (for a Standard Schema, its output: what `validate` hands
 * back); a loose record when the schema is not a literal type.
 */
export type ArgsOf<S> = S extends StandardSchemaV1
  ? InferOutput<S>
  : S extends ObjectSchema
    ? string extends S['type']
      ? Record<string, unknown>
      : FromSchema<S>
    : Record<string, unknown>;

/**
 * The structured output an `outputSchema` describes (for a Standard Schema, what it accepts; its
 * output is what is sent); anything when there is none.
 */
export type OutputOf<O> = O extends StandardSchemaV1
  ? InferInput<O>
  : O extends ObjectSchema
    ? FromSchema<O>
    : unknown;

/**
 * What a handler may return: a string (one text block), a full CallToolResult (passed through), or
 * with an outputSchema the structured value itself (sent as structuredContent plus a JSON text block).
 */
export type ToolReturn<O> = string | CallToolResult | OutputOf<O> | undefined;

/**
 * A handler. Its return is typed `unknown` on purpose: checking it against `ToolReturn<O>` makes
 * the compiler infer through the output schema while it is still inferring the definition (a
 * handler returning `new Promise(...)` then fails with "excessively deep"). The shape is checked at
 * run time instead, against the outputSchema, with a tool error that names the mismatch.
 */
export type ToolHandler<S, _O = undefined> = (args: ArgsOf<S>, ctx: ToolContext) => unknown;

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface ToolIcon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: 'light' | 'dark';
}

/** Heap caps for the worker threads that run a blocking tool (Node's `resourceLimits`). */
export interface WorkerResourceLimits {
  maxOldGenerationSizeMb?: number;
  maxYoungGenerationSizeMb?: number;
  codeRangeSizeMb?: number;
  stackSizeMb?: number;
}

interface ToolCommon<S extends ToolSchema, O extends ToolSchema | undefined> {
  /** 1 to 128 characters of [A-Za-z0-9_.-]; unique within a server. */
  name: string;
  title?: string;
  description?: string;
  inputSchema: S;
  outputSchema?: O;
  annotations?: ToolAnnotations;
  icons?: ToolIcon[];
  _meta?: Record<string, unknown>;
  /**
   * Labels for the server's own use (enable or disable by tag, `ctx.*().list({ tags })`); never
   * published: put them in `_meta` too if clients should see them.
   */
  tags?: readonly string[];
  /**
   * OAuth scopes a caller must hold, all of them, to see and call this tool (checked only for
   * callers with a principal, i.e. behind an auth hook). Over HTTP a caller lacking one gets 403
   * `insufficient_scope` naming them; never published. See docs/authorization.md.
   */
  scopes?: readonly string[];
  /** This tool's deadline in ms; it can only tighten the server's `timeoutMs`. 0 = none of its own. */
  timeoutMs?: number;
  /** At most this many calls of this tool run at once; more wait in the bounded queue. */
  concurrency?: number;
  /** What one caller may hold and spend of this tool (on top of the server's own `limits`). */
  limits?: LimitsOption;
  /**
   * With an outputSchema: the structured content that timeout and error results carry, so clients
   * that read only structuredContent still get a well-formed value. Checked at registration.
   */
  structuredFailure?: { timeout?: OutputOf<NoInfer<O>>; error?: OutputOf<NoInfer<O>> };
  /**
   * Whether a call may run as a task (answered at once with a task id, polled for its result):
   * `'optional'` runs as a task when the client supports tasks and synchronously otherwise,
   * `'required'` only ever as a task (a client without task support is refused with a message
   * that says so). Absent: never a task. Published as `execution.taskSupport` in the legacy era.
   */
  task?: TaskSupport;
  /**
   * Runs in the request itself, on the main thread, before any task is created: return
   * `inputRequired(...)` to gather input in multi-round requests first (the answers reach the
   * handler as `ctx.inputResponses`), or nothing to create the task. Only with `task`.
   */
  beforeTask?: BeforeTask;
  /** MCP Apps: the `ui://` resource a host renders for this tool, and who may call it (tool-ui.ts). */
  ui?: ToolUi;
}

export type TaskSupport = 'optional' | 'required';

/** What `beforeTask` sees: the answers gathered so far and the state it carried. */
export interface BeforeTaskContext {
  readonly inputResponses: Readonly<Record<string, unknown>>;
  readonly requestState: unknown;
  /** Who is calling (the frozen Principal the auth hook vouched for); undefined without auth. */
  readonly auth: Principal | undefined;
}

export type BeforeTask = (
  args: Record<string, unknown>,
  ctx: BeforeTaskContext,
) => unknown | Promise<unknown>;

export interface InlineToolDefinition<S extends ToolSchema, O extends ToolSchema | undefined = undefined>
  extends ToolCommon<S, O> {
  blocking?: false;
  handler: ToolHandler<NoInfer<S>, NoInfer<O>>;
}

export interface BlockingToolDefinition<S extends ToolSchema, O extends ToolSchema | undefined = undefined>
  extends ToolCommon<S, O> {
  blocking: true;
  /**
   * The module a pool worker imports to find the handler: `import.meta.url` when this definition
   * lives in that module (the recommended shape), or a URL / absolute path to another module.
   */
  module: string | URL;
  /** Which export of `module` holds the handler (a function or a tool definition); default `default`. */
  export?: string;
  /** The handler, when this definition lives in `module` itself. Never called on the main thread. */
  handler?: ToolHandler<NoInfer<S>, NoInfer<O>>;
  /** Heap caps for the threads that run this tool; a heap overrun ends the call as panicked. */
  resourceLimits?: WorkerResourceLimits;
  /**
   * Where the handler runs: `'thread'` (default) in a pool thread, `'process'` in a pool child
   * process that is killed outright at the deadline or cancel, with every process it started. Use
   * `'process'` for handlers that block inside native code (`execSync`, `Atomics.wait`, a sync
   * addon), which no thread termination can interrupt. It costs more per call: see
   * docs/failure-semantics.md.
   */
  isolation?: ToolIsolation;
  /**
   * The environment the handler sees. By default a worker gets only a small non-secret baseline
   * (PATH, TMPDIR, TZ, LANG and friends), never the server's secrets. `true` shares the server's
   * whole environment; a record adds exactly those variables to the baseline.
   */
  env?: ToolEnv;
  /**
   * Where calls run: `'local'`, this server's own pool, or `'fleet'`, a `weft worker` process on
   * any machine sharing the server's fleet Redis (see docs/scaling-out.md). Absent: as the
   * server's `fleet.placement` says (`'fleet'` when the server has a fleet), else local.
   */
  placement?: Placement;
  /**
   * On the fleet: how many more times a call runs when the worker running it died (killed, out of
   * memory). Default 0: a call is never run twice. Only for tools with `annotations.idempotentHint`.
   */
  fleetRetries?: number;
}

export type Placement = 'local' | 'fleet';

export type ToolIsolation = 'thread' | 'process';
export type ToolEnv = true | Readonly<Record<string, string>>;

export type ToolDefinition<
  S extends ToolSchema = ObjectSchema,
  O extends ToolSchema | undefined = undefined,
> = InlineToolDefinition<S, O> | BlockingToolDefinition<S, O>;

/** Every option key a tool definition may carry; anything else is refused at registration. */
export const TOOL_OPTION_KEYS: ReadonlySet<string> = new Set([
  'name',
  'title',
  'description',
  'inputSchema',
  'outputSchema',
  'annotations',
  'icons',
  '_meta',
  'tags',
  'scopes',
  'timeoutMs',
  'concurrency',
  'limits',
  'structuredFailure',
  'blocking',
  'handler',
  'module',
  'export',
  'resourceLimits',
  'isolation',
  'env',
  'placement',
  'fleetRetries',
  'task',
  'beforeTask',
  'ui',
]);

declare const checkedDefinition: unique symbol;

/**
 * A definition that has already been type-checked by `defineTool`. The mark exists only for the
 * compiler: it lets `server.tool(definition)` accept it without inferring its schema types again.
 */
export interface DefinedTool {
  readonly [checkedDefinition]: true;
  readonly name: string;
}

/**
 * Identity at run time; at compile time it infers the handler's argument type from the schemas.
 * Use it for a tool defined in a module of its own (`export default defineTool({...})`).
 */
export function defineTool<const S extends ToolSchema, const O extends ToolSchema | undefined = undefined>(
  definition: ToolDefinition<S, O>,
): ToolDefinition<S, O> & DefinedTool {
  return definition as ToolDefinition<S, O> & DefinedTool;
}
