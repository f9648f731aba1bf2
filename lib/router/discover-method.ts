/**
 * `server/discover`: the 2026-07-28 era's way to learn what a server speaks and offers, without
 * a handshake and without leaving anything behind. The answer is computed per request (so it
 * follows what is registered now); ModernAnswers adds resultType, the cache hints and serverInfo.
 *
 * `supportedVersions` lists the modern versions only: the legacy ones are negotiated through
 * `initialize`, and a modern client picks from this list for its `_meta`.
 */
import { DISCOVER_METHOD, MODERN_VERSIONS, TASKS_EXTENSION } from '../protocol/eras.js';
import type { Router } from './router.js';
import type { ServerIdentity } from './server-identity.js';

export function addDiscoverMethod(router: Router, identity: ServerIdentity): void {
  router.method(DISCOVER_METHOD, () => {
    const result: Record<string, unknown> = {
      supportedVersions: [...MODERN_VERSIONS],
      capabilities: modernCapabilities(identity.capabilities()),
    };
    if (identity.instructions !== undefined) result.instructions = identity.instructions;
    return result;
  });
}

/**
 * The capabilities as the 2026-07-28 era names them: tasks are the extension
 * `io.modelcontextprotocol/tasks`, never the legacy `capabilities.tasks` slot.
 */
function modernCapabilities(capabilities: Record<string, unknown>): Record<string, unknown> {
  const { tasks, ...rest } = capabilities;
  if (tasks === undefined) return capabilities;
  const extensions = (rest.extensions ?? {}) as Record<string, unknown>;
  return { ...rest, extensions: { ...extensions, [TASKS_EXTENSION]: {} } };
}
