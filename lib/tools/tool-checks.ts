/**
 * From a tool definition to a registered tool: every mistake a user can make in a definition is
 * caught here, when the tool is registered, with a sentence that says what to fix, so that a
 * server that starts is a server whose tools can all be called. The schemas are compiled once,
 * here; what tools/list will send is encoded once, here, so a listing cannot fail at run time.
 *
 * The registry (tool-registry.ts) owns the set of tools; this file owns what one tool must be.
 * A blocking tool's own options are checked in blocking-tool-checks.ts.
 */
import { readScopes } from '../auth/scopes.js';
import { findHeaderParams } from '../protocol/header-param-schema.js';
import { encodeJson } from '../protocol/message-encoding.js';
import type { ArgumentMap } from './argument-mapping.js';
import { checkBlockingOptions, refuseBlockingOnlyOptions } from './blocking-tool-checks.js';
import { checkLimits } from './per-caller-limits.js';
import type { RegisteredTool, ToolDescriptor } from './registered-tool.js';
import type { SchemaCompiler } from './schema-compiler.js';
import type { Checked, ValueCheck } from './standard-schema-check.js';
import { TOOL_OPTION_KEYS, type ToolDefinition } from './tool-definition.js';
import { compileToolSchema, synchronousCheck } from './tool-schema.js';
import { checkToolUi } from './tool-ui.js';
import { transformedInfo } from './transformed-tool.js';

/** 1 to 128 characters of [A-Za-z0-9_.-] (MCP's tool name rule). */
export const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const DESCRIPTOR_KEYS = ['title', 'description', 'outputSchema', 'annotations', 'icons', '_meta'] as const;

export class ToolRegistrationError extends Error {
  override readonly name = 'ToolRegistrationError';
}

/** What the checks need to know of the server. */
export interface ToolCheckSettings {
  readonly compiler: SchemaCompiler;
  /** Whether the server has a fleet, so that `placement: 'fleet'` can be honoured. */
  readonly fleetConfigured: boolean;
  /** The server's `scopesSupported`: a tool may require only these (absent: any scope). */
  readonly scopesSupported: readonly string[] | undefined;
}

export function checkTool(definition: ToolDefinition, settings: ToolCheckSettings): RegisteredTool {
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

  const input = compileToolSchema(settings.compiler, definition.inputSchema, 'inputSchema', 'input', fail);
  // A transformed tool's arguments are checked against its published schema, then mapped back
  // to the original's names (transformed-tool.ts), before anything runs.
  const transformed = transformedInfo(definition);
  const checkArguments = transformed?.map ? thenMap(input.check, transformed.map) : input.check;
  const headerParams = findHeaderParams(input.published as ToolDefinition['inputSchema'], fail);
  const output =
    definition.outputSchema === undefined
      ? undefined
      : compileToolSchema(settings.compiler, definition.outputSchema, 'outputSchema', 'output', fail);
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
      if (!checked.ok) fail(`structuredFailure.${kind} does not match the outputSchema: ${checked.problem}`);
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
  const scopes = readScopes(definition.scopes, settings.scopesSupported);
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
    return {
      ...base,
      blocking: true,
      ...checkBlockingOptions(definition, settings.fleetConfigured, fail),
      handlerName: transformed?.handlerName ?? definition.name,
    };
  }
  if (definition.blocking !== undefined && definition.blocking !== false) {
    fail('blocking must be true or false');
  }
  refuseBlockingOnlyOptions(definition, fail);
  if (typeof definition.handler !== 'function') {
    fail('an inline tool needs a handler function (or set blocking: true and give its module)');
  }
  const pooled = transformed?.pooledOriginal;
  if (pooled === undefined) return { ...base, blocking: false, handler: definition.handler as never };
  // A custom handler over a blocking original: its forward runs this compiled original.
  const forwardTo = checkTool(pooled as ToolDefinition, settings);
  if (!forwardTo.blocking) fail('its forward target is not a blocking tool');
  return { ...base, blocking: false, handler: definition.handler as never, forwardTo: forwardTo as never };
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
