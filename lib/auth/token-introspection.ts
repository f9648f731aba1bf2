/**
 * RFC 7662 token introspection, for opaque access tokens: weft asks the authorization server (as a
 * client of its own, with its own credentials) whether a token is active and what it grants, and
 * then checks the answer as it checks a JWT: the issuer, the audience (a token for another
 * resource is refused even when active), the validity window.
 *
 * What one caller can make it cost is bounded, here and in the pieces it composes:
 * - a refused token is remembered by its digest for `negativeCacheTtlMs` (default 5 s), so the same
 *   bad token sent again is not introspected again;
 * - the same token asked about at once is one request (single-flight.ts);
 * - two lanes, so that made-up tokens cannot delay real ones: a token seen valid before (`known`)
 *   is checked again in a lane of its own (`maxConcurrent` running, `maxQueued` waiting); every
 *   other token goes through a lane shared fairly by source (fair-gate.ts: `maxConcurrent` running,
 *   `maxQueued` waiting, a line per source served in turn), and each source may start at most
 *   `perSourceBurst` such checks at once, refilled at `perSourcePerSecond` (source-budget.ts), so
 *   one address cannot spend what the authorization server allows weft; beyond, it is told to retry;
 * - an endpoint that fails or limits weft (429, 503) opens a breaker (circuit-breaker.ts): callers
 *   get 503 with Retry-After rather than 500, and the endpoint is left alone while it recovers;
 * - trouble is logged at most once per 10 s per kind (rate-limited-log.ts).
 * An accepted token is remembered by the caller (oauth-resource-server.ts) until `rememberUntil`:
 * at most `cacheTtlMs` (default 30 s, at most 60 s), never past its `exp`. That is the revocation
 * window: a token revoked at the authorization server stops working within `cacheTtlMs`. While the
 * endpoint cannot be asked, a token verified before keeps working for `staleWindowMs` more (never
 * past its `exp`; verified-tokens.ts): an outage or a flood refuses only tokens never seen valid.
 */
import { BoundedExpiryCache, tokenDigest } from './bounded-expiry-cache.js';
import { CircuitBreaker } from './circuit-breaker.js';
import { ConcurrencyGate, GateFullError } from './concurrency-gate.js';
import { FairGate } from './fair-gate.js';
import type { TokenCheck } from './jwt-access-token.js';
import { RateLimitedLog } from './rate-limited-log.js';
import { SingleFlight } from './single-flight.js';
import { SourceBudget } from './source-budget.js';

export interface IntrospectionOptions {
  /** The introspection endpoint; found in the issuer's metadata when absent. */
  endpoint?: string;
  /** weft's own client credentials at the authorization server (sent as HTTP Basic). */
  clientId: string;
  clientSecret: string;
  /** How long an active token's answer is trusted (default 30 000 ms, at most 60 000; never past exp). */
  cacheTtlMs?: number;
  /** How long a refused token is remembered, by digest (default 5 000 ms, at most 60 000). */
  negativeCacheTtlMs?: number;
  /** Introspection requests at once, in each of the two lanes (default 16). */
  maxConcurrent?: number;
  /** Introspections waiting for a place, in each lane (default 256); beyond, callers get 503 and Retry-After. */
  maxQueued?: number;
  /** While the endpoint cannot be asked, how long a token verified before still works past its
   * `cacheTtlMs` (default 60 000 ms, at most 300 000; never past `exp`; 0: not at all). */
  staleWindowMs?: number;
  /** Checks of tokens never seen valid one source may start at once (default 32). */
  perSourceBurst?: number;
  /** How fast a source's allowance of such checks refills, per second (default 8). */
  perSourcePerSecond?: number;
}

export const INTROSPECTION_DEFAULTS = {
  cacheTtlMs: 30_000,
  maxCacheTtlMs: 60_000,
  negativeCacheTtlMs: 5_000,
  maxConcurrent: 16,
  maxQueued: 256,
  staleWindowMs: 60_000,
  maxStaleWindowMs: 300_000,
  perSourceBurst: 32,
  perSourcePerSecond: 8,
  /** Refused tokens remembered at most (each entry a digest and five claims: about 400 bytes). */
  negativeMaxEntries: 10_000,
  /** An answer larger than this is a failure, not something to parse and keep. */
  maxAnswerBytes: 64 * 1024,
} as const;

export interface IntrospectionCheckOptions extends Omit<IntrospectionOptions, 'endpoint'> {
  endpoint: () => Promise<string>;
  issuer: string;
  clockToleranceSec: number;
  timeoutMs?: number;
  /** Where trouble is written (rate-limited); default stderr. */
  log?: (line: string) => void;
}

/** The endpoint could not be asked (breaker open, queue full, failure): retry after that long. */
export interface Unavailable {
  unavailable: string;
  retryAfterMs: number;
}

export type IntrospectionCheck = TokenCheck | Unavailable;

/** Who asks, for the lanes: the request's source, and whether the token was seen valid before. */
export interface IntrospectionAsker {
  source: string;
  known: boolean;
}

class UnavailableError extends Error {
  constructor(
    message: string,
    readonly retryAfterMs: number,
  ) {
    super(message);
  }
}

/** What a refusal is judged on again: a few claims, never the whole answer. */
function essentials(answer: Record<string, unknown>): Record<string, unknown> {
  const { active, iss, aud, exp, nbf } = answer;
  return { active, iss, aud, exp, nbf };
}

/** Retry-After in seconds (RFC 9110 §10.2.3; the date form is read too), as ms. */
function retryAfterMs(header: string | null, now: number): number | undefined {
  if (header === null) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export class TokenIntrospection {
  readonly #options: IntrospectionCheckOptions;
  readonly #authorization: string;
  readonly #cacheTtlMs: number;
  readonly #negativeTtlMs: number;
  readonly #refused = new BoundedExpiryCache<Record<string, unknown>>(
    INTROSPECTION_DEFAULTS.negativeMaxEntries,
  );
  readonly #flights = new SingleFlight<Record<string, unknown>>();
  /** The lane of tokens seen valid before: bogus tokens never enter it. */
  readonly #knownLane: ConcurrencyGate;
  /** The lane of every other token, shared fairly by source. */
  readonly #unknownLane: FairGate;
  readonly #budget: SourceBudget;
  readonly #breaker = new CircuitBreaker();
  readonly #log: RateLimitedLog;

  constructor(options: IntrospectionCheckOptions) {
    this.#options = options;
    // RFC 6749 §2.3.1: id and secret are form-encoded before they are joined.
    const basic = `${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`;
    this.#authorization = `Basic ${Buffer.from(basic).toString('base64')}`;
    this.#cacheTtlMs = options.cacheTtlMs ?? INTROSPECTION_DEFAULTS.cacheTtlMs;
    this.#negativeTtlMs = options.negativeCacheTtlMs ?? INTROSPECTION_DEFAULTS.negativeCacheTtlMs;
    const running = options.maxConcurrent ?? INTROSPECTION_DEFAULTS.maxConcurrent;
    const waiting = options.maxQueued ?? INTROSPECTION_DEFAULTS.maxQueued;
    this.#knownLane = new ConcurrencyGate(running, waiting);
    this.#unknownLane = new FairGate(running, waiting);
    this.#budget = new SourceBudget(
      options.perSourceBurst ?? INTROSPECTION_DEFAULTS.perSourceBurst,
      options.perSourcePerSecond ?? INTROSPECTION_DEFAULTS.perSourcePerSecond,
    );
    this.#log = new RateLimitedLog(options.log ?? ((line) => process.stderr.write(`${line}\n`)));
  }

  /** Until when an accepted token may be trusted without asking again: the revocation window. */
  rememberUntil(expiresAt: number | undefined, now = Date.now()): number {
    const bound = now + this.#cacheTtlMs;
    return expiresAt === undefined ? bound : Math.min(expiresAt, bound);
  }

  /** The sizes of what it holds, for stats. */
  get stats() {
    return {
      refusedTokens: this.#refused.size,
      inFlight: this.#flights.size,
      running: this.#knownLane.running + this.#unknownLane.running,
      queued: this.#knownLane.waiting + this.#unknownLane.waiting,
      sourcesWaiting: this.#unknownLane.sources,
      sourcesBudgeted: this.#budget.size,
      breakerOpen: this.#breaker.isOpen(),
    };
  }

  async check(
    token: string,
    audience: string,
    digest = tokenDigest(token),
    asker: IntrospectionAsker = { source: 'unknown', known: false },
  ): Promise<IntrospectionCheck> {
    const refused = this.#refused.get(digest);
    if (refused !== undefined) return this.#judge(refused, audience, Date.now());
    let answer: Record<string, unknown>;
    try {
      answer = await this.#flights.run(digest, () => this.#admitted(token, asker));
    } catch (error) {
      if (error instanceof UnavailableError) {
        return { unavailable: error.message, retryAfterMs: error.retryAfterMs };
      }
      throw error;
    }
    const now = Date.now();
    const verdict = this.#judge(answer, audience, now);
    if ('invalid' in verdict) this.#refused.set(digest, essentials(answer), now + this.#negativeTtlMs, now);
    return verdict;
  }

  /** Asks the endpoint when the breaker, the lane and the budget let it; otherwise fails as unavailable. */
  async #admitted(token: string, asker: IntrospectionAsker): Promise<Record<string, unknown>> {
    if (this.#breaker.isOpen()) throw this.#breakerOpen();
    // Checked again at its turn: the breaker may have opened while it waited.
    const ask = () => {
      if (this.#breaker.admit() > 0) throw this.#breakerOpen();
      return this.#ask(token);
    };
    try {
      if (asker.known) return await this.#knownLane.run(ask);
      const waitMs = this.#budget.take(asker.source);
      if (waitMs > 0) {
        this.#log.log(
          'budget',
          `oauthResourceServer: ${asker.source} presents more unknown tokens than introspection.perSourceBurst and perSourcePerSecond allow; refused with 503`,
        );
        throw new UnavailableError(
          'This address presents too many new tokens at once',
          Math.max(1000, Math.min(waitMs, 60_000)),
        );
      }
      return await this.#unknownLane.run(asker.source, ask);
    } catch (error) {
      if (!(error instanceof GateFullError)) throw error;
      this.#log.log(
        'full',
        `oauthResourceServer: ${error.message} introspections of distinct tokens; refused with 503 (introspection.maxConcurrent, maxQueued)`,
      );
      throw new UnavailableError('Too many tokens are being checked at once', 1000);
    }
  }

  #breakerOpen(): UnavailableError {
    const waitMs = Math.max(this.#breaker.waitMs(), 1000);
    return new UnavailableError("The authorization server is not answering weft's token checks", waitMs);
  }

  async #ask(token: string): Promise<Record<string, unknown>> {
    let endpoint = '(unknown)';
    let response: Response;
    try {
      endpoint = await this.#options.endpoint();
      response = await fetch(endpoint, {
        method: 'POST',
        headers: {
          authorization: this.#authorization,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }),
        signal: AbortSignal.timeout(this.#options.timeoutMs ?? 10_000),
      });
    } catch (error) {
      return this.#failed(`introspection at ${endpoint} failed: ${(error as Error).message}`, {});
    }
    if (!response.ok) {
      await response.body?.cancel();
      const overloaded = response.status === 429 || response.status === 503;
      const hint = overloaded ? 'it limits weft' : 'check introspection.clientId and clientSecret';
      return this.#failed(`introspection at ${endpoint} answered HTTP ${response.status}; ${hint}`, {
        overloaded,
        retryAfterMs: retryAfterMs(response.headers.get('retry-after'), Date.now()),
      });
    }
    const text = await response.text();
    let answer: unknown;
    try {
      if (text.length > INTROSPECTION_DEFAULTS.maxAnswerBytes) throw new Error(`${text.length} bytes`);
      answer = JSON.parse(text);
    } catch (error) {
      return this.#failed(
        `introspection at ${endpoint} answered no usable JSON (${(error as Error).message})`,
        {},
      );
    }
    if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) {
      return this.#failed(`introspection at ${endpoint} answered JSON that is not an object`, {});
    }
    this.#breaker.succeeded();
    return answer as Record<string, unknown>;
  }

  #failed(detail: string, how: { overloaded?: boolean; retryAfterMs?: number | undefined }): never {
    this.#breaker.failed({ overloaded: how.overloaded, retryAfterMs: how.retryAfterMs });
    this.#log.log(
      how.overloaded ? 'overloaded' : 'failed',
      `oauthResourceServer: ${detail}; callers get 503`,
    );
    throw new UnavailableError(
      'The authorization server could not check the token',
      Math.max(this.#breaker.waitMs(), 1000),
    );
  }

  #judge(answer: Record<string, unknown>, audience: string, now: number): TokenCheck {
    if (answer.active !== true) return { invalid: 'the token is not active' };
    if (answer.iss !== undefined && answer.iss !== this.#options.issuer) {
      return { invalid: 'the token was issued by another authorization server' };
    }
    const audiences = Array.isArray(answer.aud) ? answer.aud : answer.aud === undefined ? [] : [answer.aud];
    if (!audiences.includes(audience))
      return { invalid: `the token was not issued for this resource (${audience})` };
    const tolerance = this.#options.clockToleranceSec * 1000;
    if (typeof answer.exp !== 'number') return { invalid: 'the token carries no expiry' };
    if (answer.exp * 1000 + tolerance <= now) return { invalid: 'the token has expired' };
    if (typeof answer.nbf === 'number' && answer.nbf * 1000 - tolerance > now) {
      return { invalid: 'the token is not valid yet' };
    }
    // The server we asked vouches for its own tokens: its issuer is the token's.
    return { claims: { ...answer, iss: this.#options.issuer } };
  }
}
