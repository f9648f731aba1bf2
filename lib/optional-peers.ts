/**
 * The optional peer dependencies behind the fleet and RedisTaskStore: `ioredis` and `bullmq`.
 *
 * A project that installs only weft serves stdio, HTTP and WebSocket, runs pools, processes and
 * tasks in memory, and never has either on disk: nothing imports them until a fleet or a
 * RedisTaskStore is built. Then they are loaded here, and their absence is an error at start that
 * says what to install, instead of a module-resolution failure at import.
 *
 * ioredis is loaded with `require` (it is CommonJS), so the constructors that open connections
 * stay synchronous and fail where they are called; bullmq with a dynamic `import`, where the fleet
 * opens (already async). `resolvePeersFrom` is a seam for tests: it points the loader at module
 * names that do not exist, which is what a project without the packages sees.
 */
import { createRequire } from 'node:module';

export type OptionalPeer = 'ioredis' | 'bullmq';

const INSTALL = 'npm install bullmq ioredis';
const require = createRequire(import.meta.url);
let names: Record<OptionalPeer, string> = { ioredis: 'ioredis', bullmq: 'bullmq' };

/** Tests only: load the peers from other module names (e.g. ones that do not exist); returns the undo. */
export function resolvePeersFrom(override: Partial<Record<OptionalPeer, string>>): () => void {
  const before = names;
  names = { ...names, ...override };
  return () => {
    names = before;
  };
}

function missing(peer: OptionalPeer, usedBy: string, error: unknown): Error {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== 'MODULE_NOT_FOUND' && code !== 'ERR_MODULE_NOT_FOUND') return error as Error;
  return new Error(
    `${usedBy} needs the optional packages bullmq and ioredis (${peer} is not installed): run \`${INSTALL}\``,
  );
}

/** ioredis's exports, loaded on first use; throws, saying what to install, when it is absent. */
export function loadIoredis(usedBy: string): typeof import('ioredis') {
  try {
    return require(names.ioredis) as typeof import('ioredis');
  } catch (error) {
    throw missing('ioredis', usedBy, error);
  }
}

/** bullmq's exports, imported on first use; rejects, saying what to install, when it is absent. */
export async function loadBullmq(usedBy: string): Promise<typeof import('bullmq')> {
  try {
    return (await import(names.bullmq)) as typeof import('bullmq');
  } catch (error) {
    throw missing('bullmq', usedBy, error);
  }
}
