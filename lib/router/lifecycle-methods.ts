/**
 * The legacy-era lifecycle: `initialize` with version negotiation, `notifications/initialized`,
 * `ping`, `notifications/cancelled` and `logging/setLevel`.
 */

import { LOG_LEVELS, logLevelIndex } from '../protocol/log-levels.js';
import { ProtocolError } from '../protocol/protocol-error.js';
import { negotiateVersion } from '../protocol/versions.js';
import type { Router } from './router.js';
import type { ServerIdentity } from './server-identity.js';

export function addLifecycleMethods(router: Router, identity: ServerIdentity): void {
  router
    .method('initialize', ({ session, params }) => {
      session.protocolVersion = negotiateVersion(params.protocolVersion);
      const capabilities = params.capabilities;
      session.clientCapabilities =
        typeof capabilities === 'object' && capabilities !== null
          ? (capabilities as Record<string, unknown>)
          : {};
      session.clientInfo = params.clientInfo as Record<string, unknown> | undefined;
      const result: Record<string, unknown> = {
        protocolVersion: session.protocolVersion,
        capabilities: identity.capabilities(),
        serverInfo: identity.serverInfo,
      };
      if (identity.instructions !== undefined) result.instructions = identity.instructions;
      return result;
    })
    .method('ping', () => ({}))
    .method('logging/setLevel', ({ session, params }) => {
      const index = logLevelIndex(params.level);
      if (index < 0) {
        throw ProtocolError.invalidParams(
          `Unknown log level ${JSON.stringify(params.level)}; use one of ${LOG_LEVELS.join(', ')}`,
        );
      }
      session.minLogLevel = index;
      return {};
    })
    .notification('notifications/initialized', (session) => {
      session.initialized = true;
    })
    .notification('notifications/cancelled', (session, params) => {
      const id = params.requestId;
      if (typeof id === 'string' || typeof id === 'number') session.cancel(id);
    });
}
