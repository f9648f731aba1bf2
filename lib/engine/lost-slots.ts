/**
 * Pool slots that cannot run a call and will not free themselves soon: a thread that was terminated
 * and has not exited (it is inside native code, which a termination cannot interrupt), or a call of
 * a native tool pinned to threads that was abandoned and whose handler has not returned (such a
 * thread is never terminated: native-verdicts.ts). Admission already keeps these slots busy; this is
 * what tells the world: a log line with the tool's name, `server.stats`, a metric, and readiness
 * (no usable slot: 503) and liveness (all slots lost for longer than a bound: restart me).
 *
 * A terminated thread normally exits within milliseconds, so it counts as lost at once (readiness
 * must not say ready while no slot can run a call) but is reported in the log only once it has
 * stayed lost for `REPORT_AFTER_MS`: a storm of ordinary deadlines writes nothing.
 */

/** How long a terminated thread may take to exit before the log says its slot is lost. */
export const REPORT_AFTER_MS = 1_000;

export type LostHow = 'terminated' | 'waiting';

interface LostSlot {
  readonly tool: string;
  readonly how: LostHow;
  readonly since: number;
  reported: boolean;
  timer?: NodeJS.Timeout;
}

export class LostSlots {
  readonly #total: number;
  readonly #logError: (message: string) => void;
  readonly #lost = new Set<LostSlot>();
  /** When the last usable slot was lost; undefined while one is usable. */
  #allLostSince: number | undefined;

  constructor(total: number, logError: (message: string) => void) {
    this.#total = total;
    this.#logError = logError;
  }

  /**
   * A slot of a call of `tool` is lost from now on; the function returned says it is back (its
   * thread exited, or its handler returned). Calling it again does nothing.
   */
  lose(tool: string, how: LostHow): () => void {
    const slot: LostSlot = { tool, how, since: Date.now(), reported: false };
    this.#lost.add(slot);
    if (this.#lost.size >= this.#total) this.#allLostSince ??= slot.since;
    if (how === 'waiting') this.#report(slot);
    else {
      slot.timer = setTimeout(() => this.#report(slot), REPORT_AFTER_MS);
      slot.timer.unref();
    }
    return () => this.#found(slot);
  }

  /** Slots lost now. */
  get count(): number {
    return this.#lost.size;
  }

  /** Slots that can run a call now or once their call ends (total minus lost). */
  get usable(): number {
    return Math.max(0, this.#total - this.#lost.size);
  }

  /** How long no slot has been usable, in ms (0 while one is). */
  allLostForMs(now = Date.now()): number {
    return this.#allLostSince === undefined ? 0 : now - this.#allLostSince;
  }

  /** The tools whose calls hold the lost slots, for a probe's reason (names, no arguments). */
  tools(): string[] {
    return [...new Set([...this.#lost].map((slot) => slot.tool))].sort();
  }

  #report(slot: LostSlot): void {
    slot.reported = true;
    const why =
      slot.how === 'terminated'
        ? `the thread running tool "${slot.tool}" was terminated ${Date.now() - slot.since} ms ago and has not exited (it is inside native code, which a termination cannot interrupt)`
        : `tool "${slot.tool}" loads native code and is pinned to threads, so its abandoned call's thread is not terminated; the slot is back when its handler returns`;
    this.#logError(`weft: a pool slot is lost: ${why}; ${this.#lost.size} of ${this.#total} slots lost`);
  }

  #found(slot: LostSlot): void {
    if (!this.#lost.delete(slot)) return;
    clearTimeout(slot.timer);
    if (this.#lost.size < this.#total) this.#allLostSince = undefined;
    if (slot.reported) {
      this.#logError(
        `weft: the pool slot held by tool "${slot.tool}" is back after ${Date.now() - slot.since} ms; ${this.#lost.size} of ${this.#total} slots lost`,
      );
    }
  }
}
