/**
 * A cap on work in progress at once, with a bounded queue behind it: `maxRunning` run, up to
 * `maxWaiting` wait their turn in arrival order, and beyond that `enter` refuses at once instead of
 * queuing without end. Token introspection uses it so that a flood of distinct tokens costs the
 * authorization server at most `maxRunning` requests at a time and weft a bounded table.
 */
export class GateFullError extends Error {
  constructor(
    readonly maxRunning: number,
    readonly maxWaiting: number,
  ) {
    super(`${maxRunning} running and ${maxWaiting} waiting already`);
  }
}

export class ConcurrencyGate {
  readonly #maxRunning: number;
  readonly #maxWaiting: number;
  #running = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(maxRunning: number, maxWaiting: number) {
    this.#maxRunning = Math.max(1, maxRunning);
    this.#maxWaiting = Math.max(0, maxWaiting);
  }

  /** Runs `work` when a place is free; rejects with GateFullError when the queue is full too. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#running >= this.#maxRunning) {
      if (this.#waiting.length >= this.#maxWaiting)
        throw new GateFullError(this.#maxRunning, this.#maxWaiting);
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else {
      this.#running++;
    }
    try {
      return await work();
    } finally {
      // The place passes straight to the next in line, so the count never dips in between.
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running--;
    }
  }

  get running(): number {
    return this.#running;
  }

  get waiting(): number {
    return this.#waiting.length;
  }
}
