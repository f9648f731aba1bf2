/**
 * Who waits, and whose turn is next when a slot frees: start-time fair queuing (SFQ, Goyal et al.)
 * over callers' keys, weighted, measured in pool time rather than in calls.
 *
 * Every caller key has a virtual tag: the virtual time by which its share of the pool is used up.
 * A call granted to a key is charged its expected pool time divided by the key's weight (the tag
 * moves on by that much), and corrected by what it really held when it gives its slot back. The
 * next slot goes to the waiting key with the smallest tag, so over time each busy key holds the
 * pool in proportion to its weight, whether its calls are long or short. A key that was idle comes
 * back at the current virtual time (the start tag of the last grant), never earlier: an idle key
 * banks no credit, so "least used lately" means lately.
 *
 * Waiting calls sit in lanes, one per key and tool (and whether the call needs a thread), first
 * come first served within a lane. Lanes with calls are in one of two binary heaps (calls that need
 * a thread, calls that do not), ordered by their key's tag, then by the arrival of their first call:
 * with a single key (fairness off) that order is exactly first come, first served. A lane whose
 * tool is at its own `concurrency` is parked on the tool until one of its calls ends, so a decision
 * costs O(log lanes) and never scans the waiting calls.
 *
 * Keys come and go with callers (without auth, every modern HTTP request is a caller), so the key
 * table is bounded: a key that neither runs nor waits is forgotten once it has been idle
 * `idleKeyMs`, and when the table holds `maxKeys` the longest-idle keys go first to make room.
 * Forgetting a key still in debt lets it come back at the virtual time, the cost of a bound.
 */

import { KeyState, Lane, LaneHeap } from './fair-lanes.js';

export { KeyState, Lane } from './fair-lanes.js';

/** Who a call is for: an opaque key (the router chooses it) and that key's weight (> 0). */
export interface Caller {
  readonly key: string;
  readonly weight: number;
}

/** Every call of a key without a caller of its own, and every call when fairness is off. */
export const ANONYMOUS: Caller = Object.freeze({ key: '', weight: 1 });

/** What one key holds and waits for, for `server.stats`. */
export interface CallerHolding {
  readonly key: string;
  readonly weight: number;
  /** Slots (threads, processes, fleet or tool turns) its calls hold now. */
  readonly running: number;
  /** Its calls waiting for one. */
  readonly waiting: number;
  /** Pool time its calls held, in ms, since the key was first seen (or last forgotten while idle). */
  readonly heldMs: number;
}

/**
 * How long an idle key is remembered (ms): its debt, its lanes, its pool time averages. Debt only
 * matters while callers contend; a caller idle this long comes back level with the rest. Short,
 * because keys are cheap to make: without auth every client address (and every stdio or
 * in-process connection) is a key of its own (caller-keys.ts).
 */
export const DEFAULT_IDLE_KEY_MS = 10_000;
/** The most keys remembered at once, idle or not (keys with calls are never dropped). */
export const DEFAULT_MAX_KEYS = 4_096;

export interface FairQueueOptions {
  /** Share by tags (default true); false: first come, first served. */
  fair?: boolean;
  idleKeyMs?: number;
  maxKeys?: number;
  now?: () => number;
}

/** How much pool time a key's first call is expected to take, before anything was measured. */
const FIRST_ESTIMATE_MS = 10;
/** Weight of the newest measurement in a key's moving average of pool time per call. */
const EWMA_ALPHA = 0.2;

/**
 * The waiting calls and the fair order among them. It knows nothing of slots: admission.ts asks it
 * for the next lane that could start, and parks lanes whose tool is full.
 */
export class FairQueue<W> {
  readonly #keys = new Map<string, KeyState>();
  /** Keys with nothing running or waiting, by when they fell idle (a Map: oldest first). */
  readonly #idle = new Map<string, number>();
  readonly #idleKeyMs: number;
  readonly #maxKeys: number;
  readonly #now: () => number;
  readonly #threadHeap = new LaneHeap<W>();
  readonly #freeHeap = new LaneHeap<W>();
  /** Lanes parked on their tool (by the lane's tool id) while it is at its own concurrency. */
  readonly #parked = new Map<string, Lane<W>[]>();
  /** The system's virtual time: the start tag of the latest grant. */
  #virtualTime = 0;
  #nextSeq = 0;
  #size = 0;
  /** Mean pool time per call over every key: a new key's first estimate. */
  #meanMs = FIRST_ESTIMATE_MS;
  /**
   * False (fairness off): tags never move, so lanes are ordered by arrival alone, which is first
   * come, first served across every caller; keys are still counted, for limits and stats.
   */
  readonly #fair: boolean;

  constructor(options: FairQueueOptions = {}) {
    this.#fair = options.fair ?? true;
    this.#idleKeyMs = options.idleKeyMs ?? DEFAULT_IDLE_KEY_MS;
    this.#maxKeys = options.maxKeys ?? DEFAULT_MAX_KEYS;
    this.#now = options.now ?? Date.now;
  }

  /** How many keys are remembered now (busy and idle), for `server.stats`. */
  get keyCount(): number {
    return this.#keys.size;
  }

  get size(): number {
    return this.#size;
  }

  /** The state of `caller`'s key, made when first seen. */
  keyOf(caller: Caller): KeyState {
    let state = this.#keys.get(caller.key);
    if (!state) {
      this.#forgetIdle();
      state = new KeyState(caller.key, caller.weight, this.#meanMs);
      this.#keys.set(caller.key, state);
    } else {
      state.weight = caller.weight;
    }
    return state;
  }

  /** Queues `item` at the end of its lane (key, tool, thread or not). */
  push(owner: KeyState, toolId: string, needsThread: boolean, item: W): Lane<W> {
    const lanes = (needsThread ? owner.threadLanes : owner.freeLanes) as Map<string, Lane<W>>;
    let lane = lanes.get(toolId);
    if (!lane) {
      lane = new Lane<W>(owner, needsThread);
      lanes.set(toolId, lane);
    }
    // A key that had nothing waiting comes back at the current virtual time, with no banked credit.
    if (this.#fair && owner.waiting === 0 && owner.tag < this.#virtualTime) {
      this.#retag(owner, this.#virtualTime);
    }
    const seq = this.#nextSeq++;
    lane.push(item, seq);
    owner.waiting++;
    this.#size++;
    if (lane.length === 1 && !lane.parked) this.#heapOf(lane).push(lane);
    return lane;
  }

  /** The lane whose head should start next: among thread lanes only when `threadFree`. */
  peek(threadFree: boolean): Lane<W> | undefined {
    const free = this.#freeHeap.peek();
    if (!threadFree) return free;
    const thread = this.#threadHeap.peek();
    if (!free) return thread;
    if (!thread) return free;
    const ahead =
      thread.owner.tag < free.owner.tag ||
      (thread.owner.tag === free.owner.tag && thread.headSeq < free.headSeq);
    return ahead ? thread : free;
  }

  /** How many calls of `owner` wait for tool `toolId` (one lane). */
  waitingIn(owner: KeyState, toolId: string, needsThread: boolean): number {
    return (needsThread ? owner.threadLanes : owner.freeLanes).get(toolId)?.length ?? 0;
  }

  /** Takes `lane` out of the running until its tool (`toolId`) has room: see `unpark`. */
  park(lane: Lane<W>, toolId: string): void {
    this.#heapOf(lane).remove(lane);
    lane.parked = true;
    const parked = this.#parked.get(toolId);
    if (parked) parked.push(lane);
    else this.#parked.set(toolId, [lane]);
  }

  /** The tool `toolId` has room again: its parked lanes compete again. */
  unpark(toolId: string): void {
    const parked = this.#parked.get(toolId);
    if (!parked) return;
    this.#parked.delete(toolId);
    for (const lane of parked) {
      lane.parked = false;
      if (lane.length > 0) this.#heapOf(lane).push(lane);
    }
  }

  /** Takes the head of `lane` for a grant, charging its key (see `charge`). */
  shift(lane: Lane<W>): W {
    const item = lane.shift();
    this.#size--;
    lane.owner.waiting--;
    this.#afterRemoval(lane);
    return item;
  }

  /** Takes `item` out of `lane` (a withdrawn wait); false when it is no longer there. */
  withdraw(lane: Lane<W>, item: W): boolean {
    if (!lane.remove(item)) return false;
    this.#size--;
    lane.owner.waiting--;
    this.#afterRemoval(lane);
    this.forgetIfIdle(lane.owner);
    return true;
  }

  /**
   * A call of `owner` starts: the start tag is the key's tag (never behind the virtual time), and
   * the key is charged the pool time its calls take on average, over its weight.
   */
  charge(owner: KeyState): number {
    owner.running++;
    if (!this.#fair) return owner.meanMs;
    const start = Math.max(owner.tag, this.#virtualTime);
    this.#virtualTime = start;
    const charged = owner.meanMs / owner.weight;
    this.#retag(owner, start + charged);
    return owner.meanMs;
  }

  /** A call of `owner` charged `chargedMs` gave its slot back after holding it `heldMs`. */
  settle(owner: KeyState, chargedMs: number, heldMs: number): void {
    owner.running--;
    owner.heldMs += heldMs;
    owner.meanMs += EWMA_ALPHA * (heldMs - owner.meanMs);
    this.#meanMs += EWMA_ALPHA * (heldMs - this.#meanMs);
    if (this.#fair && heldMs !== chargedMs)
      this.#retag(owner, owner.tag + (heldMs - chargedMs) / owner.weight);
    this.forgetIfIdle(owner);
  }

  /**
   * Drops a key that neither runs nor waits and owes nothing beyond the virtual time: it would come
   * back at the virtual time anyway. A key still in debt is kept, so leaving and coming straight
   * back does not wipe what it used.
   */
  forgetIfIdle(owner: KeyState): void {
    if (owner.running !== 0 || owner.waiting !== 0) return;
    this.#idle.delete(owner.key);
    if (owner.tag <= this.#virtualTime) this.#keys.delete(owner.key);
    else this.#idle.set(owner.key, this.#now());
  }

  /**
   * Before a new key is added: forgets the keys idle longer than `idleKeyMs`, then the longest idle
   * while the table is full. A key in `#idle` that has calls again is only taken off that list.
   */
  #forgetIdle(): void {
    const cutoff = this.#now() - this.#idleKeyMs;
    for (const [key, since] of this.#idle) {
      if (since > cutoff && this.#keys.size < this.#maxKeys) break;
      this.#idle.delete(key);
      const state = this.#keys.get(key);
      if (state !== undefined && state.running === 0 && state.waiting === 0) this.#keys.delete(key);
    }
  }

  /** Every key known now, with what it holds and waits for. */
  holdings(): CallerHolding[] {
    return [...this.#keys.values()].map((state) => ({
      key: state.key,
      weight: state.weight,
      running: state.running,
      waiting: state.waiting,
      heldMs: Math.round(state.heldMs),
    }));
  }

  #retag(owner: KeyState, tag: number): void {
    owner.tag = tag;
    for (const lane of owner.threadLanes.values()) this.#threadHeap.update(lane as Lane<W>);
    for (const lane of owner.freeLanes.values()) this.#freeHeap.update(lane as Lane<W>);
  }

  #afterRemoval(lane: Lane<W>): void {
    if (lane.length === 0) this.#heapOf(lane).remove(lane);
    else this.#heapOf(lane).update(lane);
  }

  #heapOf(lane: Lane<W>): LaneHeap<W> {
    return lane.needsThread ? this.#threadHeap : this.#freeHeap;
  }
}
