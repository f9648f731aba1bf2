/**
 * Memory for large answers' bytes, reused once the socket has taken them.
 *
 * Each answer of 64 KiB or more is encoded into a Buffer of its own (chunk-bytes.ts). A fresh
 * Buffer is memory the allocator may just have had from the system, and every page of it faults on
 * its first write: on a 2-vCPU VM, a 100 KiB document answered from a pool thread took 17-18 page
 * faults a call, 85% of them in that write, and cost 773-865 µs a call against 373 with the
 * allocator told to keep freed memory (issue 39). A transport that knows when a write is done
 * hands its Buffer back here, and the next answer of that size is written into memory already
 * mapped.
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
  /** The Buffers this set handed out and has not had back, by the memory under them. */
  readonly #lent = new WeakSet<ArrayBuffer>();
  #closed = false;

  /** A Buffer of exactly `bytes` bytes (contents undefined), reused memory when there is some. */
  take(bytes: number): Buffer {
    const capacity = capacityFor(bytes);
    if (capacity === undefined) return Buffer.allocUnsafe(bytes);
    const memory = this.#free.get(capacity)?.pop() ?? new ArrayBuffer(capacity);
    this.#lent.add(memory);
    return Buffer.from(memory, 0, bytes);
  }

  /**
   * Takes back a Buffer from `take` once nothing reads it any more (its write is done). Anything
   * else, and a Buffer already given back, is ignored.
   */
  give(buffer: Buffer): void {
    const memory = buffer.buffer;
    if (!(memory instanceof ArrayBuffer) || !this.#lent.has(memory)) return;
    this.#lent.delete(memory);
    if (this.#closed) return;
    const free = this.#free.get(memory.byteLength) ?? [];
    if (free.length >= PER_CAPACITY) return;
    free.push(memory);
    this.#free.set(memory.byteLength, free);
  }

  /** Whether `buffer` is one this set lent out. */
  lent(buffer: Buffer): boolean {
    return buffer.buffer instanceof ArrayBuffer && this.#lent.has(buffer.buffer);
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
}

/** The power of two that holds `bytes`, or undefined outside the sizes kept. */
function capacityFor(bytes: number): number | undefined {
  if (bytes < SMALLEST || bytes > LARGEST) return undefined;
  let capacity = SMALLEST;
  while (capacity < bytes) capacity *= 2;
  return capacity;
}
