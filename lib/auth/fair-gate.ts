/**
 * A cap on work in progress at once, with a bounded queue behind it that is shared fairly by
 * source: each source waits in a line of its own, and a freed place goes to the lines in turn
 * (round robin), so a source with 250 waiting does not make a source with one wait behind all 250.
 * When the queue is full, a newcomer whose source holds at least two places fewer than the biggest
 * holder takes the biggest holder's latest place (that one is refused instead); a newcomer from the biggest
 * holder itself is refused. So one source can fill an idle queue, but never keep others out of it.
 *
 * Token introspection gives each unknown token's check to this gate under the request's source
 * (introspection-source.ts), so a flood of made-up tokens from one place costs the other places
 * nothing but their turn.
 */
import { GateFullError } from './concurrency-gate.js';

interface Waiter {
  readonly go: () => void;
  readonly refuse: (error: GateFullError) => void;
}

export class FairGate {
  readonly #maxRunning: number;
  readonly #maxWaiting: number;
  #running = 0;
  #waiting = 0;
  /** Each source's line, in the order their turns come; a source leaves when its line is empty. */
  readonly #lines = new Map<string, Waiter[]>();

  constructor(maxRunning: number, maxWaiting: number) {
    this.#maxRunning = Math.max(1, maxRunning);
    this.#maxWaiting = Math.max(0, maxWaiting);
  }

  /** Runs `work` for `source` when its turn comes; rejects with GateFullError when refused a place. */
  async run<T>(source: string, work: () => Promise<T>): Promise<T> {
    if (this.#running >= this.#maxRunning) await this.#wait(source);
    else this.#running++;
    try {
      return await work();
    } finally {
      this.#passOn();
    }
  }

  get running(): number {
    return this.#running;
  }

  get waiting(): number {
    return this.#waiting;
  }

  /** Sources with someone waiting. */
  get sources(): number {
    return this.#lines.size;
  }

  #wait(source: string): Promise<void> {
    if (this.#waiting >= this.#maxWaiting && !this.#evictForNewcomer(source)) {
      return Promise.reject(new GateFullError(this.#maxRunning, this.#maxWaiting));
    }
    return new Promise<void>((go, refuse) => {
      let line = this.#lines.get(source);
      if (line === undefined) {
        line = [];
        this.#lines.set(source, line);
      }
      line.push({ go, refuse });
      this.#waiting++;
    });
  }

  /** The queue is full: frees the biggest holder's latest place when `source` holds fewer. */
  #evictForNewcomer(source: string): boolean {
    let biggest: Waiter[] | undefined;
    let biggestSource = '';
    for (const [holder, line] of this.#lines) {
      if (biggest === undefined || line.length > biggest.length) {
        biggest = line;
        biggestSource = holder;
      }
    }
    const mine = this.#lines.get(source)?.length ?? 0;
    // Only a holder with at least two more than the newcomer gives way: equals never trade places.
    if (biggest === undefined || mine + 1 >= biggest.length) return false;
    const evicted = biggest.pop()!;
    if (biggest.length === 0) this.#lines.delete(biggestSource);
    this.#waiting--;
    evicted.refuse(new GateFullError(this.#maxRunning, this.#maxWaiting));
    return true;
  }

  /** A place is free: it passes straight to the next line's first waiter, or is given back. */
  #passOn(): void {
    const next = this.#lines.entries().next();
    if (next.done) {
      this.#running--;
      return;
    }
    const [source, line] = next.value;
    const waiter = line.shift()!;
    this.#waiting--;
    // Its turn taken, the source goes to the back of the round (or leaves, its line empty).
    this.#lines.delete(source);
    if (line.length > 0) this.#lines.set(source, line);
    waiter.go();
  }
}
