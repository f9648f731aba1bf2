/**
 * The cancel flags of one thread pool: one SharedArrayBuffer, made with the pool and handed to its
 * threads once (as workerData), cut into one flag per running call.
 *
 * Why not a SharedArrayBuffer per call: allocating one, and cloning it into the worker with every
 * task, cost about 15 µs per blocking call on the benchmark machine. A task now carries only its
 * flag's slot number.
 *
 * A slot is leased for as long as a thread may still touch its flag, which is exactly as long as the
 * call holds its admission slot: the executor gives both back together. Admission never lets more
 * calls hold thread slots than the pool has threads, so `capacity` (maxThreads) slots always
 * suffice; running out means that promise was broken, and is reported as the bug it is.
 */
import { FLAG_SLOTS } from './abandon-reason.js';

/** Int32 fields in one call's flag, and the bytes they take. */
export const FLAG_LENGTH = Object.keys(FLAG_SLOTS).length;
export const FLAG_BYTES = FLAG_LENGTH * Int32Array.BYTES_PER_ELEMENT;

export class CancelFlags {
  /** Sent to every thread of the pool once, as workerData. */
  readonly buffer: SharedArrayBuffer;
  readonly #views: Int32Array[];
  readonly #free: number[];

  constructor(capacity: number) {
    this.buffer = new SharedArrayBuffer(capacity * FLAG_BYTES);
    this.#views = Array.from({ length: capacity }, (_, slot) => flagView(this.buffer, slot));
    // Popped from the end: slot 0 first, which keeps a quiet pool on the same few cache lines.
    this.#free = this.#views.map((_, slot) => capacity - 1 - slot);
  }

  /** A free slot for a call about to start, its flag cleared to "running, not watched, not started". */
  lease(): number {
    const slot = this.#free.pop();
    if (slot === undefined) {
      throw new Error(
        `weft internal error: all ${this.#views.length} cancel flags of a thread pool are in use, though admission allows no more calls than threads`,
      );
    }
    const flag = this.#views[slot]!;
    Atomics.store(flag, FLAG_SLOTS.reason, 0);
    Atomics.store(flag, FLAG_SLOTS.watching, 0);
    Atomics.store(flag, FLAG_SLOTS.life, 0);
    Atomics.store(flag, FLAG_SLOTS.thread, 0);
    return slot;
  }

  /** The flag of a leased slot, as the main thread writes it. */
  flag(slot: number): Int32Array {
    return this.#views[slot]!;
  }

  /** Gives a slot back once no thread can touch its flag any more. */
  giveBack(slot: number): void {
    this.#free.push(slot);
  }

  /** The flags of the calls that hold a slot now (close() waits for those still loading). */
  leased(): Int32Array[] {
    const free = new Set(this.#free);
    return this.#views.filter((_, slot) => !free.has(slot));
  }

  /** Slots not leased now, for tests. */
  get available(): number {
    return this.#free.length;
  }
}

/** One call's flag inside a pool's buffer; the worker side builds the same view from its slot. */
export function flagView(buffer: SharedArrayBuffer, slot: number): Int32Array {
  return new Int32Array(buffer, slot * FLAG_BYTES, FLAG_LENGTH);
}
