/**
 * Legacy HTTP sessions counted per caller (caller-identity.ts: the principal that initialized them,
 * else the client's address). One caller may hold at most `maxSessionsPerCaller` sessions; past
 * it, its least recently used idle session (no request in flight, no stream open) is ended to make
 * room, and only when every one of them is busy is the new initialize refused (429). When the
 * whole table is full, a newcomer takes the least recently used idle session of the caller that
 * holds the most. So neither one caller nor the ten that fill `maxSessions` between them can lock
 * another client out, and a client that leaks sessions loses its own oldest ones first.
 */
import type { HttpSession } from './http-session.js';

/** Sessions one caller may hold at once (the default of `maxSessionsPerCaller`). */
export const DEFAULT_MAX_SESSIONS_PER_CALLER = 1_000;

export class CallerSessions {
  /** Each caller's sessions, least recently used first (a Map keeps insertion order). */
  readonly #byCaller = new Map<string, Map<string, HttpSession>>();
  /** The caller each session is counted against. */
  readonly #callerOf = new Map<string, string>();
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  /**
   * Room for one more session of `caller`: undefined when there is, after ending (`end`) its least
   * recently used idle session if it was at its cap; otherwise the number it holds, all busy.
   */
  makeRoom(caller: string, end: (session: HttpSession) => void): number | undefined {
    const mine = this.#byCaller.get(caller);
    if (mine === undefined || mine.size < this.#max) return undefined;
    for (const session of mine.values()) {
      if (!session.idle) continue;
      end(session);
      return undefined;
    }
    return mine.size;
  }

  add(caller: string, session: HttpSession): void {
    let mine = this.#byCaller.get(caller);
    if (mine === undefined) {
      mine = new Map();
      this.#byCaller.set(caller, mine);
    }
    mine.set(session.id, session);
    this.#callerOf.set(session.id, caller);
  }

  /** `session` was used: it becomes its caller's most recently used. */
  touch(session: HttpSession): void {
    const mine = this.#byCaller.get(this.#callerOf.get(session.id) ?? '');
    if (mine === undefined || !mine.delete(session.id)) return;
    mine.set(session.id, session);
  }

  remove(session: HttpSession): void {
    const caller = this.#callerOf.get(session.id);
    if (caller === undefined) return;
    this.#callerOf.delete(session.id);
    const mine = this.#byCaller.get(caller);
    mine?.delete(session.id);
    if (mine?.size === 0) this.#byCaller.delete(caller);
  }

  /**
   * The least recently used idle session of the caller holding the most sessions (of the next
   * biggest when all of that one's are busy), among callers holding more than `newcomer` would once
   * served (so taking it is fair); undefined when there is none.
   */
  idleOfBiggestHolder(newcomer: string): HttpSession | undefined {
    const enough = (this.#byCaller.get(newcomer)?.size ?? 0) + 1;
    const holders = [...this.#byCaller.values()].sort((a, b) => b.size - a.size);
    for (const sessions of holders) {
      if (sessions.size <= enough) break;
      for (const session of sessions.values()) if (session.idle) return session;
    }
    return undefined;
  }

  /** Callers holding sessions now. */
  get callers(): number {
    return this.#byCaller.size;
  }

  clear(): void {
    this.#byCaller.clear();
    this.#callerOf.clear();
  }
}
