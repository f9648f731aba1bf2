/**
 * A legacy-era session the server lost, recovered: the client starts a new session and sends the
 * refused request again, once.
 *
 * Why here and not in the transport: starting a session is the client's business (its version,
 * capabilities, log level), and several requests in flight may meet the same 404 at once; they
 * must share one new session, not open one each. Why a retry is safe: a 404 to a session-bearing
 * request means the server refused it before running it (it did not know the session), as a
 * -32020 refusal does. Two kinds are not sent again: `initialize` (the renewal is one), and
 * `tasks/*` (a task lived in the lost session; the new one cannot know it, and saying so is more
 * useful than the new session's "unknown task").
 */
import { McpError, SessionLostError } from './client-errors.js';

export interface LinkRecoveryPort {
  /** The session id the transport sends now (undefined while none is open). */
  currentSession(): string | undefined;
  /** Opens a new session (initialize, initialized, the log level again). */
  renewSession(): Promise<void>;
  /** A new session replaced a lost one: what the caller kept of the old (listings, subscriptions) is stale. */
  renewed(): void;
}

export class LinkRecovery {
  readonly #port: LinkRecoveryPort;
  /** The renewal under way, which every request meeting the 404 waits for. */
  #renewing: Promise<void> | undefined;
  /** A lost session not yet replaced (a renewal failed): the next request renews first. */
  #lost: string | undefined;

  constructor(port: LinkRecoveryPort) {
    this.#port = port;
  }

  /** Sends a request with `attempt`; a lost session is renewed and the request sent again once. */
  async run<T>(method: string, attempt: () => Promise<T>): Promise<T> {
    if (this.#renewing) await this.#renewing.catch(() => {});
    if (this.#lost !== undefined) await this.#renew(this.#lost);
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof SessionLostError) || method === 'initialize') throw error;
      const current = this.#port.currentSession();
      // Another request already replaced this session: only the retry is left to do.
      if (current === undefined || current === error.sessionId) await this.#renew(error.sessionId);
      if (method.startsWith('tasks/')) {
        throw new McpError(
          -32602,
          `${method}: the server lost the session this task belonged to (it restarted or expired it); the task is gone, a new session was started`,
        );
      }
      return attempt();
    }
  }

  #renew(stale: string): Promise<void> {
    this.#lost = stale;
    this.#renewing ??= this.#port
      .renewSession()
      .then(() => {
        this.#lost = undefined;
        this.#port.renewed();
      })
      .finally(() => {
        this.#renewing = undefined;
      });
    return this.#renewing;
  }
}
