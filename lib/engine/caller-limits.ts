/**
 * The per-caller limits (`limits.perCaller`, server-wide and per tool) applied to one call as it
 * enters the engine: calls in flight, calls per minute, pool time per minute. A call over any of
 * them is refused before anything runs, with the limit named and a time to retry. The `queued`
 * limit is admission's (admission.ts): it is about this replica's queue.
 *
 * Keys are opaque here: the router chose them (the principal, the session, a tenant...). What is
 * counted lives in caller-counts.ts (this process) or shared-caller-counts.ts (Redis).
 */

import type { PerCallerLimits } from '../tools/per-caller-limits.js';
import type { RegisteredTool } from '../tools/registered-tool.js';
import type { CallerCounts, CountCheck, CountKind, EntryResult } from './caller-counts.js';
import type { Caller } from './fair-queue.js';
import type { LimitExceeded } from './limit-exceeded.js';

const KINDS: readonly CountKind[] = ['callsInFlight', 'callsPerMinute', 'poolMsPerMinute'];

/** A call that passed: `leave` when it ends. */
export interface CallerEntry {
  leave(): void;
}

export class CallerLimits {
  readonly #server: PerCallerLimits;
  readonly #counts: CallerCounts;
  /** Tools whose limits count nothing here (only `queued`, or none): no entry to make. */
  readonly #serverCounts: boolean;
  /** Mean duration of a call in flight (ms): when a callsInFlight refusal says to retry. */
  #meanCallMs = 1_000;

  constructor(server: PerCallerLimits | undefined, counts: CallerCounts) {
    this.#server = server ?? {};
    this.#counts = counts;
    this.#serverCounts = KINDS.some((kind) => this.#server[kind] !== undefined);
  }

  /** Whether calls of `tool` are counted at all (else `enter` need not be called). */
  applies(tool: RegisteredTool): boolean {
    return this.#serverCounts || KINDS.some((kind) => tool.limits?.perCaller?.[kind] !== undefined);
  }

  /** Enters a call of `caller`: an entry to leave when it ends, or the limit that refuses it. */
  enter(
    caller: Caller,
    tool: RegisteredTool,
  ): CallerEntry | LimitExceeded | Promise<CallerEntry | LimitExceeded> {
    const checks = this.#checks(caller, tool);
    const entered = this.#counts.enter(checks);
    return entered instanceof Promise
      ? entered.then((result) => this.#outcome(result, checks))
      : this.#outcome(entered, checks);
  }

  /** A call of `caller` held a slot for `ms` (admission's report). */
  charge(caller: Caller, tool: RegisteredTool, ms: number): void {
    if (this.#server.poolMsPerMinute === undefined && tool.limits?.perCaller?.poolMsPerMinute === undefined) {
      return;
    }
    this.#counts.charge(this.#checks(caller, tool), ms);
  }

  #outcome(result: EntryResult, checks: readonly CountCheck[]): CallerEntry | LimitExceeded {
    if (!result.passed) {
      const check = checks[result.index]!;
      return {
        limit: check.kind,
        scope: check.scope,
        max: check.max,
        retryAfterMs: Math.max(1, Math.ceil(result.retryAfterMs ?? this.#meanCallMs)),
      };
    }
    const enteredAt = Date.now();
    return {
      leave: () => {
        this.#meanCallMs += 0.1 * (Date.now() - enteredAt - this.#meanCallMs);
        result.leave();
      },
    };
  }

  #checks(caller: Caller, tool: RegisteredTool): CountCheck[] {
    const checks: CountCheck[] = [];
    const own = tool.limits?.perCaller;
    for (const kind of KINDS) {
      const server = this.#server[kind];
      if (server !== undefined)
        checks.push({ kind, scope: 'server', max: server, counter: `${kind}:s:${caller.key}` });
      const mine = own?.[kind];
      if (mine !== undefined) {
        checks.push({ kind, scope: 'tool', max: mine, counter: `${kind}:t:${tool.name}:${caller.key}` });
      }
    }
    return checks;
  }
}
