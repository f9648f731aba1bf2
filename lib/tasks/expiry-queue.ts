/**
 * When each task record of the memory store expires, soonest first (a binary min-heap), so that
 * expired records leave the store's limits the moment a new task needs room, not at the next
 * minute's sweep: otherwise a caller whose records had all expired was refused for up to a minute
 * by records nobody could read any more.
 *
 * Entries are not removed when a record goes early (evicted to make room, or found expired on a
 * read): `due` hands them out anyway and the store ignores ids it no longer holds. So that such
 * leftovers cannot pile up under a flood that keeps evicting (a record's expiry may be an hour
 * away), the store rebuilds the queue from its live records once it holds more than twice as many
 * entries as records (`needsCompaction`): the queue stays within twice the store's own bound.
 */

interface Due {
  readonly at: number;
  readonly id: string;
}

export class ExpiryQueue {
  readonly #heap: Due[] = [];

  get size(): number {
    return this.#heap.length;
  }

  /** `id` expires at `at` (epoch ms); records without expiry are not pushed. */
  push(id: string, at: number): void {
    const heap = this.#heap;
    heap.push({ at, id });
    let child = heap.length - 1;
    while (child > 0) {
      const parent = (child - 1) >> 1;
      if (heap[parent]!.at <= heap[child]!.at) break;
      [heap[parent], heap[child]] = [heap[child]!, heap[parent]!];
      child = parent;
    }
  }

  /** Takes out every id whose expiry is at or before `now`, soonest first. */
  *due(now: number): Generator<string> {
    const heap = this.#heap;
    while (heap.length > 0 && heap[0]!.at <= now) {
      const { id } = heap[0]!;
      const last = heap.pop()!;
      if (heap.length > 0) {
        heap[0] = last;
        this.#sinkFromTop();
      }
      yield id;
    }
  }

  /** More than half the entries belong to records that are gone: time to `rebuild`. */
  needsCompaction(liveRecords: number): boolean {
    return this.#heap.length > 2 * liveRecords + 64;
  }

  /** Starts again from the records held now (their ids and expiries). */
  rebuild(entries: Iterable<readonly [id: string, at: number]>): void {
    this.#heap.length = 0;
    for (const [id, at] of entries) this.push(id, at);
  }

  clear(): void {
    this.#heap.length = 0;
  }

  #sinkFromTop(): void {
    const heap = this.#heap;
    let parent = 0;
    for (;;) {
      const left = 2 * parent + 1;
      const right = left + 1;
      let smallest = parent;
      if (left < heap.length && heap[left]!.at < heap[smallest]!.at) smallest = left;
      if (right < heap.length && heap[right]!.at < heap[smallest]!.at) smallest = right;
      if (smallest === parent) return;
      [heap[parent], heap[smallest]] = [heap[smallest]!, heap[parent]!];
      parent = smallest;
    }
  }
}
