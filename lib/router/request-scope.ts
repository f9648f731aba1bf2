/**
 * What one request may know about its client: the era it arrived in, the version it speaks, the
 * capabilities it declared, the log level it asked for, and whether the server may ask it things.
 *
 * Handlers read the client through this scope and never through the session, which is what keeps
 * them era-blind: a legacy scope is a snapshot of what the session negotiated at `initialize`; a
 * modern scope is built from that one request's `_meta` and forgotten with it, so nothing a modern
 * request said can leak into the next one.
 */
import type { Principal } from '../auth/principal.js';
import type { Era, ModernEnvelope } from '../protocol/eras.js';
import { logLevelIndex, NO_LOGS } from '../protocol/log-levels.js';
import type { Session } from './session.js';

export interface RequestScope {
  readonly era: Era;
  /** The protocol version the request is served under (undefined: a legacy client that never initialized). */
  readonly version: string | undefined;
  readonly clientCapabilities: Record<string, unknown>;
  readonly clientInfo: Record<string, unknown> | undefined;
  /** Index into LOG_LEVELS of the least severe level to send; NO_LOGS sends none. */
  readonly minLogLevel: number;
  /**
   * Whether the server may send requests to the client while serving this one (elicitation,
   * sampling). The 2026-07-28 era has no server-to-client requests at all.
   */
  readonly serverRequests: boolean;
  /** Who is calling, as the transport's auth hook vouched (undefined without auth). */
  readonly principal: Principal | undefined;
  /** The caller key every bound and share counts this request against (Session.caller). */
  readonly caller: string | undefined;
}

export function legacyScope(session: Session): RequestScope {
  return {
    era: 'legacy',
    version: session.protocolVersion,
    clientCapabilities: session.clientCapabilities,
    clientInfo: session.clientInfo,
    minLogLevel: session.minLogLevel,
    serverRequests: true,
    principal: session.principal,
    caller: session.caller,
  };
}

export function modernScope(
  envelope: ModernEnvelope,
  principal: Principal | undefined,
  caller: string | undefined,
): RequestScope {
  return {
    era: 'modern',
    version: envelope.version,
    clientCapabilities: envelope.clientCapabilities,
    clientInfo: envelope.clientInfo,
    // No logLevel: the request did not opt in, and no notifications/message may go out for it.
    minLogLevel: envelope.logLevel === undefined ? NO_LOGS : logLevelIndex(envelope.logLevel),
    serverRequests: false,
    principal,
    caller,
  };
}
