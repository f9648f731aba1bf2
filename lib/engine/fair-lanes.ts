/**
 * The fair queue's parts (fair-queue.ts): a caller key's state, its lanes of waiting calls (one per
 * tool, first come, first served), and the binary heap that orders lanes by their key's virtual tag.
 * Kept apart so the queue's own file holds only the policy: who goes next, and which keys it keeps.
 */
export class KeyState {
  readonly key: string;
  weight: number;
  /** Virtual finish time of its last granted call (see the module comment). */
  tag = 0;
  running = 0;
  waiting = 0;
  heldMs = 0;
  /** Moving average of the pool time its calls held (ms). */
  meanMs: number;
  /** Its lanes by tool, for calls that need a thread and for those that do not; kept while it lives. */
  readonly threadLanes = new Map<string, Lane<unknown>>();
  readonly freeLanes = new Map<string, Lane<unknown>>();

  constructor(key: string, weight: number, meanMs: number) {
    this.key = key;
    this.weight = weight;
    this.meanMs = meanMs;
  }
}

/** One key's waiting calls of one tool, first come, first served (a queue with a moving head). */
export class Lane<W> {
  readonly owner: KeyState;
  readonly needsThread: boolean;
  #items: W[] = [];
  #seqs: number[] = [];
  #head = 0;
  /** Arrival number of the call at its head: orders lanes of equal tags first come, first served. */
  headSeq = 0;
  /** Where it sits in its heap; -1 when in none (empty, or parked on its tool). */
  heapIndex = -1;
  parked = false;

  constructor(owner: KeyState, needsThread: boolean) {
    this.owner = owner;
    this.needsThread = needsThread;
  }

  get length(): number {
    return this.#items.length - this.#head;
  }

  /** The call that starts next in this lane (the lane is not empty). */
  get first(): W {
    return this.#items[this.#head]!;
  }

  push(item: W, seq: number): void {
    if (this.#items.length === this.#head) {
      this.#items.length = 0;
      this.#seqs.length = 0;
      this.#head = 0;
      this.headSeq = seq;
    }
    this.#items.push(item);
    this.#seqs.push(seq);
  }

  shift(): W {
    const item = this.#items[this.#head]!;
    this.#items[this.#head] = undefined as W;
    this.#head++;
    // Taken calls are dropped in one go once they are half the array, so shifting stays O(1).
    if (this.#head >= 64 && this.#head * 2 >= this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#seqs = this.#seqs.slice(this.#head);
      this.#head = 0;
    }
    if (this.length > 0) this.headSeq = this.#seqs[this.#head]!;
    return item;
  }

  /** Takes `item` out wherever it is (a withdrawn wait); false when it is not here. */
  remove(item: W): boolean {
    const index = this.#items.indexOf(item, this.#head);
    if (index < 0) return false;
    this.#items.splice(index, 1);
    this.#seqs.splice(index, 1);
    if (this.length > 0) this.headSeq = this.#seqs[this.#head]!;
    return true;
  }
}

/** A binary min-heap of lanes by (tag, head arrival), keeping each lane's index for removal. */
export class LaneHeap<W> {
  readonly #lanes: Lane<W>[] = [];

  get size(): number {
    return this.#lanes.length;
  }

  peek(): Lane<W> | undefined {
    return this.#lanes[0];
  }

  push(lane: Lane<W>): void {
    lane.heapIndex = this.#lanes.length;
    this.#lanes.push(lane);
    this.#up(lane.heapIndex);
  }

  remove(lane: Lane<W>): void {
    const index = lane.heapIndex;
    if (index < 0) return;
    lane.heapIndex = -1;
    const last = this.#lanes.pop()!;
    if (index === this.#lanes.length) return;
    this.#lanes[index] = last;
    last.heapIndex = index;
    this.update(last);
  }

  /** Restores the order after `lane`'s tag or head changed. */
  update(lane: Lane<W>): void {
    if (lane.heapIndex < 0) return;
    this.#up(lane.heapIndex);
    this.#down(lane.heapIndex);
  }

  #less(a: Lane<W>, b: Lane<W>): boolean {
    return a.owner.tag < b.owner.tag || (a.owner.tag === b.owner.tag && a.headSeq < b.headSeq);
  }

  #up(index: number): void {
    const lanes = this.#lanes;
    const lane = lanes[index]!;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!this.#less(lane, lanes[parent]!)) break;
      lanes[index] = lanes[parent]!;
      lanes[index]!.heapIndex = index;
      index = parent;
    }
    lanes[index] = lane;
    lane.heapIndex = index;
  }

  #down(index: number): void {
    const lanes = this.#lanes;
    const lane = lanes[index]!;
    const size = lanes.length;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= size) break;
      const right = left + 1;
      const child = right < size && this.#less(lanes[right]!, lanes[left]!) ? right : left;
      if (!this.#less(lanes[child]!, lane)) break;
      lanes[index] = lanes[child]!;
      lanes[index]!.heapIndex = index;
      index = child;
    }
    lanes[index] = lane;
    lane.heapIndex = index;
  }
}
