/**
 * The registration checks only a blocking tool has: where its handler's module is (a file: URL a
 * worker can import, which must exist), which export holds it, its heap caps and isolation, the
 * environment its workers see, and where it runs (`placement`, `fleetRetries`). An inline tool
 * giving any of these options is refused, since it would silently have no effect.
 *
 * Split from tool-checks.ts because none of it concerns a tool that runs on the event loop.
 */
import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { RegisteredBlockingTool } from './registered-tool.js';
import type { Placement, ToolDefinition } from './tool-definition.js';

/** What a blocking definition adds to a registered tool, checked. */
export type BlockingSettings = Pick<
  RegisteredBlockingTool,
  | 'moduleUrl'
  | 'exportName'
  | 'resourceLimits'
  | 'isolation'
  | 'isolationPinned'
  | 'env'
  | 'placement'
  | 'fleetRetries'
>;

export function checkBlockingOptions(
  definition: ToolDefinition & { blocking: true },
  fleetConfigured: boolean,
  fail: (message: string) => never,
): BlockingSettings {
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
  const placement = checkPlacement(definition, fleetConfigured, fail);
  return {
    moduleUrl,
    exportName: definition.export ?? 'default',
    resourceLimits: definition.resourceLimits,
    isolation,
    isolationPinned: definition.isolation !== undefined,
    env: definition.env,
    ...placement,
  };
}

/** An inline tool with an option that only a blocking tool has is refused: it would do nothing. */
export function refuseBlockingOnlyOptions(
  definition: ToolDefinition,
  fail: (message: string) => never,
): void {
  for (const key of ['module', 'resourceLimits', 'isolation', 'env', 'placement', 'fleetRetries'] as const) {
    if (key in definition) {
      fail(`${key} applies to blocking tools only; add blocking: true or remove it`);
    }
  }
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
