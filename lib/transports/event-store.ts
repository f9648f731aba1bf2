/**
 * The in-memory event store behind Streamable HTTP resumability: every message sent on an SSE
 * stream is kept under an event id, so a client that lost the connection can reconnect with
 * `Last-Event-ID` and receive what it missed (and the server can close a stream on purpose, to make
 * the client poll, without losing anything).
 *
 * One store per session. It is bounded in count and in bytes (one large tool result must not pin
 * its size in memory for a thousand events more): past either bound the oldest events are
 * forgotten first, and a client that comes back that late gets what is left. Events are kept as
 * the serialized JSON the stream carries, so replay costs no second serialization. Event ids are `<stream>_<seq>`, so an id alone
 * says which stream to resume; `<stream>_0` means "before the first message".
 */
/**
 * The bytes of events stored across every session's store, with one bound for them all: past it the
 * oldest event anywhere is forgotten first. Without it the per-session bounds multiply by the number
 * of sessions (16 MiB x 10,000 sessions).
 */
export class ReplayBudget {
  /** One entry per stored event, in arrival order: the store holding it. */
  readonly #arrivals: EventStore[] = [];
  #head = 0;
  bytes = 0;

  constructor(readonly maxBytes: number) {}

  /** An event was stored in `store`; forgets the oldest events anywhere while over the bound. */
  added(store: EventStore, bytes: number): void {
    this.#arrivals.push(store);
    this.bytes += bytes;
    while (this.bytes > this.maxBytes && this.#head < this.#arrivals.length) {
      const oldest = this.#arrivals[this.#head]!;
      this.#arrivals[this.#head++] = undefined as unknown as EventStore;
      oldest.forgetOldestForBudget();
    }
    // Compact now and then, so the queue's dead head does not grow without bound.
    if (this.#head > 1024 && this.#head * 2 > this.#arrivals.length) {
      this.#arrivals.splice(0, this.#head);
      this.#head = 0;
    }
  }
}

export interface StoredEvent {
  id: string;
  /** The JSON text of the message (or batch). */
  data: string;
}

interface StreamLog {
  events: { seq: number; data: string }[];
  nextSeq: number;
  finished: boolean;
}

export class EventStore {
  readonly #streams = new Map<string, StreamLog>();
  /** Every stored event in arrival order, for evicting the oldest first. */
  readonly #arrivals: string[] = [];
  readonly #maxEvents: number;
  readonly #maxBytes: number;
  #bytes = 0;
  #nextStream = 0;
  readonly #budget: ReplayBudget | undefined;
  /** Entries of the budget's queue for events already gone from here (evicted locally, or cleared). */
  #gone = 0;

  constructor(maxEvents: number, maxBytes: number, budget?: ReplayBudget) {
    this.#maxEvents = maxEvents;
    this.#maxBytes = maxBytes;
    this.#budget = budget;
  }

  /** The budget's oldest entry is ours: forget our oldest event, unless that one is already gone. */
  forgetOldestForBudget(): void {
    if (this.#gone > 0) {
      this.#gone--;
      return;
    }
    this.#evictOldest(false);
  }

  /** Forgets everything (the session ended), giving its bytes back to the budget. */
  clear(): void {
    this.#gone += this.#arrivals.length;
    if (this.#budget) this.#budget.bytes -= this.#bytes;
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

  /** Stores one event's JSON text and returns its id. */
  append(streamId: string, data: string): string {
    const log = this.#streams.get(streamId);
    if (!log) throw new Error(`weft: event store has no stream ${streamId}`);
    const seq = log.nextSeq++;
    log.events.push({ seq, data });
    this.#arrivals.push(streamId);
    this.#bytes += data.length;
    while (this.#arrivals.length > this.#maxEvents || this.#bytes > this.#maxBytes) this.#evictOldest(true);
    this.#budget?.added(this, data.length);
    return `${streamId}_${seq}`;
  }

  finish(streamId: string): void {
    const log = this.#streams.get(streamId);
    if (!log) return;
    log.finished = true;
    if (log.events.length === 0) this.#streams.delete(streamId);
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
      .map((event) => ({ id: `${streamId}_${event.seq}`, data: event.data }));
    return { streamId, events };
  }

  /** `local`: evicted by this store's own bounds, so the budget's entry for it is now stale. */
  #evictOldest(local: boolean): void {
    const streamId = this.#arrivals.shift();
    if (streamId === undefined) return;
    if (local && this.#budget) this.#gone++;
    const log = this.#streams.get(streamId);
    if (!log) return;
    const evicted = log.events.shift();
    if (evicted) {
      this.#bytes -= evicted.data.length;
      if (this.#budget) this.#budget.bytes -= evicted.data.length;
    }
    if (log.finished && log.events.length === 0) this.#streams.delete(streamId);
  }
}
