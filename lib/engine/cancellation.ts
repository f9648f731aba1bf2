/**
 * How a running request learns that it is no longer wanted: the client sent
 * notifications/cancelled, its connection went away, or the server is shutting down.
 *
 * Every tool call has one, and almost none is ever cancelled, so it is a plain object rather than an
 * AbortController: making a controller and adding and removing an 'abort' listener on its signal
 * (Node's EventTarget) cost about 7 µs of main-thread time per call in the benchmark profiles. A
 * real AbortSignal is made only for code that asks for one (a resource reader, a prompt), and it
 * aborts with the same reason.
 */
export type CancelReason = 'cancelled' | 'shutdown';

export type CancelListener = (reason: CancelReason) => void;

export class Cancellation {
  #reason: CancelReason | undefined;
  #listeners: CancelListener[] | undefined;
  #controller: AbortController | undefined;

  /** Why the request was cancelled, or undefined while it is still wanted. */
  get reason(): CancelReason | undefined {
    return this.#reason;
  }

  get cancelled(): boolean {
    return this.#reason !== undefined;
  }

  /** Cancels once; later calls change nothing. Listeners run synchronously, in the order added. */
  cancel(reason: CancelReason = 'cancelled'): void {
    if (this.#reason !== undefined) return;
    this.#reason = reason;
    const listeners = this.#listeners;
    this.#listeners = undefined;
    if (listeners) for (const listener of listeners) listener(reason);
    this.#controller?.abort(reason);
  }

  /** Calls `listener` when the request is cancelled (never, if it already was: check `cancelled`). */
  onCancel(listener: CancelListener): void {
    if (this.#reason !== undefined) return;
    if (this.#listeners) this.#listeners.push(listener);
    else this.#listeners = [listener];
  }

  offCancel(listener: CancelListener): void {
    const listeners = this.#listeners;
    if (!listeners) return;
    const index = listeners.indexOf(listener);
    if (index >= 0) listeners.splice(index, 1);
  }

  /** An AbortSignal that aborts with the same reason, for APIs that take one; made on first use. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#reason !== undefined) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }
}
