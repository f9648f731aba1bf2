/**
 * Memory for large answers' bytes, reused once the socket has taken them.
 *
 * Each answer of 64 KiB or more is encoded into a Buffer of its own (chunk-bytes.ts). A fresh
 * Buffer is memory the allocator may just have had from the system, and every page of it faults on
 * its first write: on a 2-vCPU VM, a 100 KiB document answered from a pool thread took 17-18 page
 * faults a call, 85% of them in that write, and cost 773-865 µs a call against 373 with the
 * allocator told to keep freed memory (issue 39). Here the next answer of that size is written
 * into memory already mapped, once nothing reads the last one's: each holder of an answer's Buffer
 * (the transport that made it, each write of it not yet done, a replay store that keeps it) holds
 * it, and the memory comes back when the last one lets go. Counting holders rather than giving back
 * at one write's end keeps a frame safe that a store replays while an earlier write still sends it.
 *
 * The transport owns its set and drops it when it closes. Bounded: buffers of 64 KiB to 1 MiB
 * only (a larger answer's encoding costs far more than its faults), capacities in powers of two,
 * and at most PER_CAPACITY of each kept (answers in flight beyond that are given fresh memory and
 * let go), so a set holds 8 MiB at most.
 */

const SMALLEST = 64 * 1024;
const LARGEST = 1024 * 1024;
const PER_CAPACITY = 4;

export class AnswerBuffers {
  /** Free buffers by capacity (a power of two, SMALLEST to LARGEST). */
  readonly #free = new Map<number, ArrayBuffer[]>();
  /** How many hold each Buffer this set handed out, by the memory under it. */
  readonly #holders = new WeakMap<ArrayBuffer, number>();
  #closed = false;

  /**
   * A Buffer of exactly `bytes` bytes (contents undefined), reused memory when there is some. The
   * caller holds it, and releases it once it has handed it to whoever writes or keeps it.
   */
  take(bytes: number): Buffer {
    const capacity = capacityFor(bytes);
    if (capacity === undefined) return Buffer.allocUnsafe(bytes);
    const memory = this.#free.get(capacity)?.pop() ?? new ArrayBuffer(capacity);
    this.#holders.set(memory, 1);
    return Buffer.from(memory, 0, bytes);
  }

  /**
   * One more holder of a Buffer from `take`: a write not yet done, a store that keeps it for a
   * replay. Anything else (a string, bytes this set did not lend) is ignored, so callers need not
   * tell which payloads came from here.
   */
  hold(payload: unknown): void {
    const memory = this.#lentMemory(payload);
    if (memory !== undefined) this.#holders.set(memory, this.#holders.get(memory)! + 1);
  }

  /**
   * A holder lets go; the last one gives the memory back for the next answer of its size. Anything
   * else, and a Buffer no longer held, is ignored. A holder that never lets go (a write whose
   * stream broke) only costs reuse: the memory is collected as any other.
   */
  release(payload: unknown): void {
    const memory = this.#lentMemory(payload);
    if (memory === undefined) return;
    const holders = this.#holders.get(memory)! - 1;
    if (holders > 0) {
      this.#holders.set(memory, holders);
      return;
    }
    this.#holders.delete(memory);
    if (this.#closed) return;
    const free = this.#free.get(memory.byteLength) ?? [];
    if (free.length >= PER_CAPACITY) return;
    free.push(memory);
    this.#free.set(memory.byteLength, free);
  }

  /** Whether `payload` is a Buffer this set lent out and someone still holds. */
  lent(payload: unknown): boolean {
    return this.#lentMemory(payload) !== undefined;
  }

  /** Bytes kept for reuse. */
  get keptBytes(): number {
    let bytes = 0;
    for (const [capacity, free] of this.#free) bytes += capacity * free.length;
    return bytes;
  }

  /** Lets every kept buffer go and keeps none from now on (the transport closed). */
  close(): void {
    this.#closed = true;
    this.#free.clear();
  }

  #lentMemory(payload: unknown): ArrayBuffer | undefined {
    if (!Buffer.isBuffer(payload)) return undefined;
    const memory = payload.buffer;
    return memory instanceof ArrayBuffer && this.#holders.has(memory) ? memory : undefined;
  }
}

/** The power of two that holds `bytes`, or undefined outside the sizes kept. */
function capacityFor(bytes: number): number | undefined {
  if (bytes < SMALLEST || bytes > LARGEST) return undefined;
  let capacity = SMALLEST;
  while (capacity < bytes) capacity *= 2;
  return capacity;
}
