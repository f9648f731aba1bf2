/**
 * Tells a reader that stopped reading from one that is merely behind, for every stream a server
 * writes to a peer (SSE responses, WebSockets).
 *
 * A byte bound alone cannot tell them apart: one answer larger than the bound puts every reader over
 * it the moment it is written, however fast that reader is. So the bound only starts a watch, and a
 * stream is ended for one of two reasons, each of which a reading peer never meets:
 * - time: while more than `maxBacklogBytes` is unread, the reader takes nothing at all for
 *   `maxStalledMs` (checked once per `maxStalledMs`; any byte taken starts the wait again);
 * - bytes (only where the writer cannot stop producing, `boundPiling`): before a message is written,
 *   what the reader has still not taken of earlier ones exceeds the bound plus the largest message
 *   written since it went over. One answer of any size, or a few large ones, always go out; a flood
 *   of notifications to a peer that does not read is stopped at about the bound.
 */

export interface ReaderBounds {
  /** Unread bytes past which the reader is watched (and, with `boundPiling`, piling is refused). */
  readonly maxBacklogBytes: number;
  /** How long a watched reader may take nothing before its stream is ended. */
  readonly maxStalledMs: number;
}

export class StalledReaderWatch {
  readonly #backlog: () => number;
  readonly #bounds: ReaderBounds;
  readonly #onStalled: () => void;
  readonly #boundPiling: boolean;
  #timer: NodeJS.Timeout | undefined;
  /** The backlog at the last check, and what was written since: what was taken is their difference. */
  #backlogAtCheck = 0;
  #writtenSinceCheck = 0;
  /** The largest message written since the backlog last went over the bound. */
  #largestOver = 0;
  #stopped = false;

  /**
   * `backlog` reads the bytes written but not yet taken by the peer; `onStalled` ends the stream.
   * `boundPiling` adds the byte rule, for writers that cannot pause what they produce.
   */
  constructor(backlog: () => number, bounds: ReaderBounds, onStalled: () => void, boundPiling: boolean) {
    this.#backlog = backlog;
    this.#bounds = bounds;
    this.#onStalled = onStalled;
    this.#boundPiling = boundPiling;
  }

  /**
   * Called before a message of `bytes` is written: false when the stream must be ended instead
   * (the byte rule), after which `onStalled` has already run.
   */
  admits(bytes: number): boolean {
    if (this.#stopped) return false;
    const unread = this.#backlog();
    if (unread <= this.#bounds.maxBacklogBytes) {
      this.#largestOver = 0;
      return true;
    }
    if (this.#boundPiling && unread > this.#bounds.maxBacklogBytes + this.#largestOver) {
      this.#stall();
      return false;
    }
    if (bytes > this.#largestOver) this.#largestOver = bytes;
    return true;
  }

  /** Called after a message of `bytes` was written: starts the watch when the reader is over the bound. */
  wrote(bytes: number): void {
    if (this.#stopped) return;
    this.#writtenSinceCheck += bytes;
    if (this.#timer !== undefined) return;
    const unread = this.#backlog();
    if (unread <= this.#bounds.maxBacklogBytes) return;
    if (bytes > this.#largestOver) this.#largestOver = bytes;
    this.#backlogAtCheck = unread;
    this.#writtenSinceCheck = 0;
    this.#timer = setTimeout(() => this.#check(), this.#bounds.maxStalledMs);
    this.#timer.unref();
  }

  /** The stream ended for another reason: nothing more to watch. */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #check(): void {
    this.#timer = undefined;
    const unread = this.#backlog();
    const taken = this.#backlogAtCheck + this.#writtenSinceCheck - unread;
    this.#writtenSinceCheck = 0;
    this.#backlogAtCheck = unread;
    if (unread <= this.#bounds.maxBacklogBytes) {
      this.#largestOver = 0;
      return;
    }
    if (taken <= 0) {
      this.#stall();
      return;
    }
    this.#timer = setTimeout(() => this.#check(), this.#bounds.maxStalledMs);
    this.#timer.unref();
  }

  #stall(): void {
    this.stop();
    this.#onStalled();
  }
}
