/**
 * The set of tools a server offers: registration checks, lookup, and the name-ordered listing.
 *
 * Every mistake a user can make in a definition is caught here, when the tool is registered, with a
 * sentence that says what to fix: a server that starts is a server whose tools can all be called.
 * The listing is kept sorted by name (code-unit order) because cursor pagination is only sound over
 * a stable total order.
 */

import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readScopes } from '../auth/scopes.js';
import { findHeaderParams } from '../protocol/header-param-schema.js';
import { encodeJson } from '../protocol/message-encoding.js';
import { TagFilter } from '../tag-filter.js';
import type { ArgumentMap } from './argument-mapping.js';
import { EXACT_SEAL, type ExactToolSpec } from './exact-tool.js';
import { findHandler } from './handler-export.js';
import { checkLimits } from './per-caller-limits.js';
import type { RegisteredTool, ToolDescriptor } from './registered-tool.js';
import type { SchemaCompiler } from './schema-compiler.js';
import type { Checked, ValueCheck } from './standard-schema-check.js';
import { type Placement, TOOL_OPTION_KEYS, type ToolDefinition } from './tool-definition.js';
import { compileToolSchema, synchronousCheck } from './tool-schema.js';
import { checkToolUi } from './tool-ui.js';
import { transformedInfo } from './transformed-tool.js';

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const DESCRIPTOR_KEYS = ['title', 'description', 'outputSchema', 'annotations', 'icons', '_meta'] as const;

export class ToolRegistrationError extends Error {
  override readonly name = 'ToolRegistrationError';
}

export class ToolRegistry {
  readonly #tools = new Map<string, RegisteredTool>();
  #sorted: RegisteredTool[] | undefined;
  readonly #compiler: SchemaCompiler;
  readonly #onChange: () => void;

  readonly #tags: TagFilter;
  /** Whether the server has a fleet, so that `placement: 'fleet'` can be honoured. */
  readonly #fleetConfigured: boolean;
  /** The server's `scopesSupported`: a tool may require only these (absent: any scope). */
  readonly #scopesSupported: readonly string[] | undefined;

  constructor(
    compiler: SchemaCompiler,
    onChange: () => void = () => {},
    tags = new TagFilter(),
    options: { fleetConfigured?: boolean; scopesSupported?: readonly string[] } = {},
  ) {
    this.#compiler = compiler;
    this.#onChange = onChange;
    this.#tags = tags;
    this.#fleetConfigured = options.fleetConfigured ?? false;
    this.#scopesSupported = options.scopesSupported;
  }

  /** The tag filter changed for `tag`: tools carrying it appear or vanish (list_changed). */
  tagChanged(tag: string): void {
    if (![...this.#tools.values()].some((tool) => tool.tags?.includes(tag))) return;
    this.#sorted = undefined;
    this.#onChange();
  }

  add(definition: ToolDefinition<never, never>): RegisteredTool {
    const tool = this.#check(definition as unknown as ToolDefinition);
    if (this.#tools.has(tool.name)) {
      throw new ToolRegistrationError(
        `Tool "${tool.name}": a tool with this name is already registered; tool names must be unique`,
      );
    }
    this.#tools.set(tool.name, tool);
    this.#sorted = undefined;
    this.#onChange();
    return tool;
  }

  /**
   * Registers an upstream's tool exactly as described (exact-tool.ts): only with the seal, which no
   * public entry exports. The name rules and uniqueness still apply, and so do its x-mcp-header
   * annotations, which weft's HTTP transport checks against the body as for any tool.
   */
  addExact(seal: typeof EXACT_SEAL, spec: ExactToolSpec): RegisteredTool {
    if (seal !== EXACT_SEAL)
      throw new ToolRegistrationError('an exact tool can only be registered by server.mount');
    const { descriptor } = spec;
    const fail = (message: string): never => {
      throw new ToolRegistrationError(`Mounted tool "${descriptor.name}": ${message}`);
    };
    if (typeof descriptor.name !== 'string' || !TOOL_NAME.test(descriptor.name)) {
      fail('the name must be 1 to 128 characters of A-Z, a-z, 0-9, "_", "-" or "."');
    }
    if (this.#tools.has(descriptor.name))
      fail('a tool with this name is already registered; mount with a namespace');
    const inputSchema =
      typeof descriptor.inputSchema === 'object' && descriptor.inputSchema !== null
        ? descriptor.inputSchema
        : {};
    const tool: RegisteredTool = {
      name: descriptor.name,
      definition: { name: descriptor.name, inputSchema, handler: () => undefined } as never,
      descriptor,
      tags: spec.tags,
      checkArguments: (value: unknown) => ({ ok: true, value }),
      headerParams: findHeaderParams(inputSchema, fail),
      checkOutput: undefined,
      timeoutMs: 0,
      concurrency: Number.POSITIVE_INFINITY,
      task: undefined,
      beforeTask: undefined,
      structuredFailure: undefined,
      blocking: false,
      handler: () => undefined,
      // A mounted tool asks for no scope of its own and has no per-caller limits of its own: the
      // server's limits apply, and the upstream does its own authorization.
      scopes: [],
      limits: undefined,
      exact: spec.call,
    };
    this.#tools.set(tool.name, tool);
    this.#sorted = undefined;
    this.#onChange();
    return tool;
  }

  remove(name: string): boolean {
    const removed = this.#tools.delete(name);
    if (removed) {
      this.#sorted = undefined;
      this.#onChange();
    }
    return removed;
  }

  /**
   * Imports every blocking tool's module and checks that it exports the tool's handler, so that a
   * wrong `module` or `export` is refused when the server starts rather than at the first call.
   */
  async verifyBlockingModules(): Promise<void> {
    const problems: string[] = [];
    for (const registered of this.#tools.values()) {
      const tool = registered.blocking ? registered : registered.forwardTo;
      if (tool === undefined) continue;
      try {
        const module = (await import(tool.moduleUrl)) as Record<string, unknown>;
        findHandler(module, {
          toolName: tool.handlerName,
          moduleUrl: tool.moduleUrl,
          exportName: tool.exportName,
        });
      } catch (error) {
        const message = (error as Error)?.message ?? String(error);
        problems.push(
          message.startsWith(`Tool "${tool.name}"`) ? message : `Tool "${tool.name}": ${message}`,
        );
      }
    }
    if (problems.length > 0) throw new ToolRegistrationError(problems.join('\n'));
  }

  /** The tool by name, unless its tags hide it. */
  get(name: string): RegisteredTool | undefined {
    const tool = this.#tools.get(name);
    return tool === undefined || this.#tags.open || this.#tags.visible(tool.tags) ? tool : undefined;
  }

  get size(): number {
    return this.#tools.size;
  }

  /** All tools their tags let through, in name order; the array is cached until the set changes. */
  sorted(): readonly RegisteredTool[] {
    if (this.#sorted === undefined) {
      this.#sorted = [...this.#tools.values()]
        .filter((tool) => this.#tags.visible(tool.tags))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    }
    return this.#sorted;
  }

  #check(definition: ToolDefinition): RegisteredTool {
    if (typeof definition !== 'object' || definition === null) {
      throw new ToolRegistrationError(
        'A tool definition must be an object with at least name, inputSchema and handler',
      );
    }
    const label = typeof definition.name === 'string' ? `Tool "${definition.name}"` : 'A tool';
    const fail = (message: string): never => {
      throw new ToolRegistrationError(`${label}: ${message}`);
    };

    for (const key of Object.keys(definition)) {
      if (!TOOL_OPTION_KEYS.has(key)) {
        fail(`unknown option "${key}". Known options: ${[...TOOL_OPTION_KEYS].join(', ')}`);
      }
    }
    if (typeof definition.name !== 'string' || !TOOL_NAME.test(definition.name)) {
      fail('the name must be 1 to 128 characters of A-Z, a-z, 0-9, "_", "-" or "."');
    }

    const input = compileToolSchema(this.#compiler, definition.inputSchema, 'inputSchema', 'input', fail);
    // A transformed tool's arguments are checked against its published schema, then mapped back
    // to the original's names (transformed-tool.ts), before anything runs.
    const transformed = transformedInfo(definition);
    const checkArguments = transformed?.map ? thenMap(input.check, transformed.map) : input.check;
    const headerParams = findHeaderParams(input.published as ToolDefinition['inputSchema'], fail);
    const output =
      definition.outputSchema === undefined
        ? undefined
        : compileToolSchema(this.#compiler, definition.outputSchema, 'outputSchema', 'output', fail);
    const checkOutput = output && synchronousCheck(output.check, 'outputSchema');

    const timeoutMs = definition.timeoutMs ?? 0;
    if (!Number.isFinite(timeoutMs) || timeoutMs < 0) {
      fail(
        `timeoutMs must be a non-negative number of milliseconds (0 = no deadline of its own), got ${timeoutMs}`,
      );
    }
    const concurrency = definition.concurrency ?? Number.POSITIVE_INFINITY;
    if (!(concurrency === Number.POSITIVE_INFINITY || (Number.isInteger(concurrency) && concurrency >= 1))) {
      fail(`concurrency must be a whole number of at least 1, got ${concurrency}`);
    }
    try {
      checkLimits(definition.limits, 'limits');
    } catch (error) {
      fail((error as Error).message);
    }

    let structuredFailure = definition.structuredFailure as RegisteredTool['structuredFailure'];
    if (structuredFailure !== undefined) {
      if (!checkOutput) fail('structuredFailure needs an outputSchema to describe it');
      const sent: NonNullable<RegisteredTool['structuredFailure']> = {};
      for (const kind of ['timeout', 'error'] as const) {
        const value = structuredFailure?.[kind];
        if (value === undefined) continue;
        const checked = checkOutput!(value);
        if (!checked.ok)
          fail(`structuredFailure.${kind} does not match the outputSchema: ${checked.problem}`);
        else sent[kind] = checked.value as Record<string, unknown>;
        const json = encodeJson(sent[kind]);
        if (!json.ok) fail(`structuredFailure.${kind} cannot be sent as JSON: ${json.problem}`);
      }
      structuredFailure = sent;
    }

    const task = definition.task;
    if (task !== undefined && task !== 'optional' && task !== 'required') {
      fail(`task must be 'optional' or 'required' (or absent: never a task), got ${JSON.stringify(task)}`);
    }
    if (definition.beforeTask !== undefined) {
      if (typeof definition.beforeTask !== 'function') fail('beforeTask must be a function');
      if (task === undefined)
        fail("beforeTask runs before a task is created; add task: 'optional' or 'required'");
    }

    const { tags } = definition;
    if (
      tags !== undefined &&
      !(Array.isArray(tags) && tags.every((tag) => typeof tag === 'string' && tag !== ''))
    ) {
      fail('tags must be an array of non-empty strings');
    }
    const scopes = readScopes(definition.scopes, this.#scopesSupported);
    if (!scopes.ok) return fail(scopes.problem);

    const descriptor = describe(definition);
    descriptor.inputSchema = input.published;
    if (output) descriptor.outputSchema = output.published;
    const meta = checkToolUi(definition.ui, definition._meta, fail);
    if (meta !== undefined) descriptor._meta = meta;
    if (task !== undefined) descriptor.execution = { taskSupport: task };
    // What tools/list sends, checked now: otherwise every listing would fail at run time.
    const listed = encodeJson(descriptor);
    if (!listed.ok) fail(`its tools/list entry cannot be sent as JSON: ${listed.problem}`);
    const base = {
      name: definition.name,
      definition: definition as unknown as ToolDefinition<never, never>,
      descriptor,
      tags,
      scopes: scopes.scopes,
      checkArguments,
      headerParams,
      checkOutput,
      timeoutMs,
      concurrency,
      limits: definition.limits,
      structuredFailure,
      task,
      beforeTask: definition.beforeTask,
    };

    if (definition.blocking === true) {
      const moduleUrl = resolveModule(definition.module, fail);
      if (
        definition.export !== undefined &&
        (typeof definition.export !== 'string' || definition.export === '')
      ) {
        fail('export must name an export of the module, for example "default" or "fibTool"');
      }
      if ('resourceLimits' in definition && definition.resourceLimits !== undefined) {
        const limits = definition.resourceLimits;
        for (const [key, value] of Object.entries(limits)) {
          if (typeof value !== 'number' || !(value > 0))
            fail(`resourceLimits.${key} must be a positive number of MB`);
        }
      }
      const isolation = definition.isolation ?? 'thread';
      if (isolation !== 'thread' && isolation !== 'process') {
        fail(`isolation must be 'thread' or 'process', got ${JSON.stringify(isolation)}`);
      }
      if (isolation === 'process') {
        for (const key of Object.keys(definition.resourceLimits ?? {})) {
          if (key !== 'maxOldGenerationSizeMb') {
            fail(
              `resourceLimits.${key} applies to threads only; with isolation: 'process' use maxOldGenerationSizeMb`,
            );
          }
        }
      }
      checkEnv(definition.env, fail);
      const placement = checkPlacement(definition, this.#fleetConfigured, fail);
      return {
        ...base,
        blocking: true,
        moduleUrl,
        exportName: definition.export ?? 'default',
        handlerName: transformed?.handlerName ?? definition.name,
        resourceLimits: definition.resourceLimits,
        isolation,
        env: definition.env,
        ...placement,
      };
    }
    if (definition.blocking !== undefined && definition.blocking !== false) {
      fail('blocking must be true or false');
    }
    for (const key of [
      'module',
      'resourceLimits',
      'isolation',
      'env',
      'placement',
      'fleetRetries',
    ] as const) {
      if (key in definition) {
        fail(`${key} applies to blocking tools only; add blocking: true or remove it`);
      }
    }
    if (typeof definition.handler !== 'function') {
      fail('an inline tool needs a handler function (or set blocking: true and give its module)');
    }
    const pooled = transformed?.pooledOriginal;
    if (pooled === undefined) return { ...base, blocking: false, handler: definition.handler as never };
    // A custom handler over a blocking original: its forward runs this compiled original.
    const forwardTo = this.#check(pooled as ToolDefinition);
    if (!forwardTo.blocking) fail('its forward target is not a blocking tool');
    return { ...base, blocking: false, handler: definition.handler as never, forwardTo: forwardTo as never };
  }
}

/** The argument check, then the transformation's mapping on what it let through. */
function thenMap(check: ValueCheck, map: ArgumentMap): ValueCheck {
  const mapped = (checked: Checked): Checked =>
    checked.ok ? map(checked.value as Record<string, unknown>) : checked;
  return (value) => {
    const checked = check(value);
    return checked instanceof Promise ? checked.then(mapped) : mapped(checked);
  };
}

function describe(definition: ToolDefinition): ToolDescriptor {
  const descriptor: ToolDescriptor = { name: definition.name, inputSchema: definition.inputSchema };
  for (const key of DESCRIPTOR_KEYS) {
    const value = definition[key];
    if (value !== undefined) (descriptor as unknown as Record<string, unknown>)[key] = value;
  }
  return descriptor;
}

/**
 * Where a blocking tool runs (`placement`) and how often a fleet call may be run again after its
 * worker died (`fleetRetries`): only for tools that declare themselves idempotent, since a worker
 * that died mid-call may have done part of the work.
 */
function checkPlacement(
  definition: ToolDefinition & { blocking: true },
  fleetConfigured: boolean,
  fail: (message: string) => never,
): { placement: Placement | undefined; fleetRetries: number } {
  const { placement, fleetRetries } = definition;
  if (placement !== undefined && placement !== 'local' && placement !== 'fleet') {
    fail(`placement must be 'local' or 'fleet', got ${JSON.stringify(placement)}`);
  }
  if (placement === 'fleet' && !fleetConfigured) {
    fail("placement: 'fleet' needs a fleet: give the server a fleet option ({ redis: 'redis://...' })");
  }
  if (fleetRetries !== undefined) {
    if (!Number.isInteger(fleetRetries) || fleetRetries < 0 || fleetRetries > 10) {
      fail(`fleetRetries must be a whole number from 0 to 10, got ${fleetRetries}`);
    }
    if (fleetRetries > 0 && definition.annotations?.idempotentHint !== true) {
      fail(
        'fleetRetries runs a call again after its worker died, which is safe only for idempotent tools: set annotations.idempotentHint: true, or remove fleetRetries',
      );
    }
  }
  return { placement, fleetRetries: fleetRetries ?? 0 };
}

function checkEnv(env: unknown, fail: (message: string) => never): void {
  if (env === undefined || env === true) return;
  const hint = "env must be true (share the server's environment) or a record of string variables";
  if (typeof env !== 'object' || env === null || Array.isArray(env)) fail(hint);
  for (const [key, value] of Object.entries(env as object)) {
    if (typeof value !== 'string') fail(`${hint}; env.${key} is ${typeof value}`);
  }
}

function resolveModule(module: unknown, fail: (message: string) => never): string {
  const hint =
    'a blocking tool needs module: import.meta.url (in the file that defines it) or the URL of a module ' +
    'whose export is the handler';
  let url: URL;
  if (module instanceof URL) url = module;
  else if (typeof module === 'string' && module.startsWith('file:')) url = new URL(module);
  else if (typeof module === 'string' && isAbsolute(module)) url = pathToFileURL(module);
  else return fail(hint);
  if (url.protocol !== 'file:') fail(`module must be a file: URL a worker can import, got ${url.href}`);
  if (!existsSync(fileURLToPath(url))) {
    fail(`module ${url.href} does not exist; ${hint} (did the build emit it?)`);
  }
  return url.href;
}
