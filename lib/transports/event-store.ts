/**
 * The in-memory event store behind Streamable HTTP resumability: every message sent on an SSE
 * stream is kept under an event id, so a client that lost the connection can reconnect with
 * `Last-Event-ID` and receive what it missed (and the server can close a stream on purpose, to make
 * the client poll, without losing anything).
 *
 * One store per session. It is bounded in count and in bytes (one large tool result must not pin
 * its size in memory for a thousand events more): past either bound the oldest events are
 * forgotten first, and a client that comes back that late gets what is left. A finished stream
 * whose reader was handed every event is forgotten at once (`forget`, called by the session): its
 * client has it all. Kept until the bounds pushed them out, answers outlived V8's young generation
 * and were collected as old objects: at 8 calls of 100 KiB in flight over HTTP that cost the server
 * 100-140 us a call, a third of the call (issue 39). Events are kept as the frame the stream wrote
 * for them (its id, its JSON, its end: the very string or Buffer that went to the socket), so
 * replay writes them again as they are and a large answer is held once, as bytes outside V8's heap.
 * Event ids are `<stream>_<seq>`, so an id alone says which stream to resume; `<stream>_0` means
 * "before the first message".
 */
import type { AnswerBuffers } from './answer-buffers.js';
import type { AnswerPayload } from './chunk-bytes.js';

/**
 * The bytes of events stored across every session's store, with one bound for them all: past it the
 * oldest event anywhere is forgotten first. Without it the per-session bounds multiply by the number
 * of sessions (16 MiB x 10,000 sessions).
 *
 * Arrivals are a doubly linked list with one node per stored event, and each node is owned by the
 * store that holds the event: when a store forgets an event (its own bounds, or its session ended)
 * it unlinks the node at once. A queue that only drained when the global bound overflowed kept one
 * entry, and with it the whole ended store, per event ever stored.
 */
export class ReplayBudget {
  #oldest: BudgetEntry | undefined;
  #newest: BudgetEntry | undefined;
  #entries = 0;
  bytes = 0;

  constructor(readonly maxBytes: number) {}

  /** Events held across every store (for tests and memory accounting). */
  get entries(): number {
    return this.#entries;
  }

  /** An event of `bytes` was stored in `store`; returns its entry, which the store must `remove` when it forgets the event. */
  added(store: EventStore, bytes: number): BudgetEntry {
    const entry: BudgetEntry = { store, bytes, older: this.#newest, newer: undefined };
    if (this.#newest) this.#newest.newer = entry;
    else this.#oldest = entry;
    this.#newest = entry;
    this.#entries++;
    this.bytes += bytes;
    return entry;
  }

  /** Forgets the oldest events anywhere while over the bound (called once the new event is in its store). */
  trim(): void {
    while (this.bytes > this.maxBytes && this.#oldest) {
      const oldest = this.#oldest;
      oldest.store.forgetOldestForBudget();
      if (this.#oldest === oldest) this.remove(oldest); // never loop on an entry its store no longer knows
    }
  }

  /** The store forgot the event behind `entry`: unlink it and give its bytes back. */
  remove(entry: BudgetEntry): void {
    if (entry.older) entry.older.newer = entry.newer;
    else if (this.#oldest === entry) this.#oldest = entry.newer;
    else return; // already removed
    if (entry.newer) entry.newer.older = entry.older;
    else this.#newest = entry.older;
    entry.older = entry.newer = undefined;
    this.#entries--;
    this.bytes -= entry.bytes;
  }
}

/** One stored event in the budget's arrival order. */
export interface BudgetEntry {
  readonly store: EventStore;
  readonly bytes: number;
  older: BudgetEntry | undefined;
  newer: BudgetEntry | undefined;
}

/**
 * What a stream writes for one event, id and framing included: text, a large event's bytes, or its
 * parts (one holding a pool thread's bytes as they came, chunk-bytes.ts). `length` bounds the store.
 */
export type EventFrame = AnswerPayload;

export interface StoredEvent {
  id: string;
  /** The event's frame, as it was written. */
  frame: EventFrame;
}

interface StreamLog {
  events: { seq: number; frame: EventFrame }[];
  nextSeq: number;
  finished: boolean;
}

/** One stored event's place in its store's arrival order, and in the budget's. */
interface Arrival {
  streamId: string;
  entry: BudgetEntry | undefined;
}

export class EventStore {
  readonly #streams = new Map<string, StreamLog>();
  /** Every stored event in arrival order, for evicting the oldest first; `entry` is its place in the budget. */
  #arrivals: Arrival[] = [];
  readonly #maxEvents: number;
  readonly #maxBytes: number;
  #bytes = 0;
  #nextStream = 0;
  readonly #budget: ReplayBudget | undefined;
  /** Where a large frame's memory came from: the store holds it while it keeps the frame (answer-buffers.ts). */
  readonly #buffers: AnswerBuffers | undefined;

  constructor(maxEvents: number, maxBytes: number, budget?: ReplayBudget, buffers?: AnswerBuffers) {
    this.#maxEvents = maxEvents;
    this.#maxBytes = maxBytes;
    this.#budget = budget;
    this.#buffers = buffers;
  }

  /** The budget is over its bound and our event is the oldest anywhere: forget it. */
  forgetOldestForBudget(): void {
    this.#evictOldest();
  }

  /** Forgets everything (the session ended), giving its bytes and its budget entries back. */
  clear(): void {
    if (this.#budget)
      for (const arrival of this.#arrivals) if (arrival.entry) this.#budget.remove(arrival.entry);
    for (const log of this.#streams.values())
      for (const event of log.events) this.#buffers?.release(event.frame);
    this.#streams.clear();
    this.#arrivals.length = 0;
    this.#bytes = 0;
  }

  /** Opens a stream; `name` fixes its id (the standalone GET stream), otherwise one is minted. */
  openStream(name?: string): string {
    const id = name ?? String(++this.#nextStream);
    if (!this.#streams.has(id)) this.#streams.set(id, { events: [], nextSeq: 1, finished: false });
    return id;
  }

  /** The id of the latest event of a stream ("everything up to here"): what a new reader is primed with. */
  primingId(streamId: string): string {
    return `${streamId}_${(this.#streams.get(streamId)?.nextSeq ?? 1) - 1}`;
  }

  /** The id the stream's next event will have: what its frame must carry. */
  nextId(streamId: string): string {
    return `${streamId}_${this.#logOf(streamId).nextSeq}`;
  }

  /** Stores the frame of the stream's next event (made with `nextId`) and returns its id. */
  append(streamId: string, frame: EventFrame): string {
    const log = this.#logOf(streamId);
    const seq = log.nextSeq++;
    log.events.push({ seq, frame });
    this.#buffers?.hold(frame);
    this.#arrivals.push({ streamId, entry: this.#budget?.added(this, frame.length) });
    this.#bytes += frame.length;
    while (this.#arrivals.length > this.#maxEvents || this.#bytes > this.#maxBytes) this.#evictOldest();
    this.#budget?.trim();
    return `${streamId}_${seq}`;
  }

  finish(streamId: string): void {
    const log = this.#streams.get(streamId);
    if (!log) return;
    log.finished = true;
    if (log.events.length === 0) this.#streams.delete(streamId);
  }

  /** Forgets a finished stream and its events (its reader took them all), giving their bytes back. */
  forget(streamId: string): void {
    const log = this.#streams.get(streamId);
    if (!log?.finished) return;
    this.#streams.delete(streamId);
    if (log.events.length === 0) return;
    for (const event of log.events) {
      this.#bytes -= event.frame.length;
      this.#buffers?.release(event.frame);
    }
    const kept: Arrival[] = [];
    for (const arrival of this.#arrivals) {
      if (arrival.streamId !== streamId) kept.push(arrival);
      else if (arrival.entry) this.#budget?.remove(arrival.entry);
    }
    this.#arrivals = kept;
  }

  isFinished(streamId: string): boolean {
    return this.#streams.get(streamId)?.finished ?? true;
  }

  /** The stream an event id belongs to, and what was sent on it after that event; undefined if unknown. */
  after(eventId: string): { streamId: string; events: StoredEvent[] } | undefined {
    const cut = eventId.lastIndexOf('_');
    if (cut <= 0) return undefined;
    const streamId = eventId.slice(0, cut);
    const seq = Number(eventId.slice(cut + 1));
    const log = this.#streams.get(streamId);
    if (!log || !Number.isInteger(seq)) return undefined;
    const events = log.events
      .filter((event) => event.seq > seq)
      .map((event) => ({ id: `${streamId}_${event.seq}`, frame: event.frame }));
    return { streamId, events };
  }

  #logOf(streamId: string): StreamLog {
    const log = this.#streams.get(streamId);
    if (!log) throw new Error(`weft: event store has no stream ${streamId}`);
    return log;
  }

  #evictOldest(): void {
    const arrival = this.#arrivals.shift();
    if (arrival === undefined) return;
    if (arrival.entry) this.#budget?.remove(arrival.entry);
    const log = this.#streams.get(arrival.streamId);
    if (!log) return;
    const evicted = log.events.shift();
    if (evicted) {
      this.#bytes -= evicted.frame.length;
      this.#buffers?.release(evicted.frame);
    }
    if (log.finished && log.events.length === 0) this.#streams.delete(arrival.streamId);
  }
}
