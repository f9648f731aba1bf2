/**
 * How the pool executor aborts one Piscina task: the smallest object Piscina accepts as a task's
 * abort signal (its documented event-emitter form, `once` and `removeListener` of 'abort').
 *
 * Every blocking call needs one, and almost none is ever aborted. A real AbortController costs an
 * EventTarget, a listener registration and its removal on every call; measured over stdio, that was
 * about a fifth of what a trivial blocking call adds over the same tool run inline. This handle is
 * one object and one field.
 */
type Listener = () => void;

export class TaskAbortHandle {
  #listener: Listener | undefined;
  #aborted = false;

  /** Read by Piscina before it starts a task: an aborted handle rejects the task at once. */
  get aborted(): boolean {
    return this.#aborted;
  }

  once(_event: 'abort', listener: Listener): void {
    this.#listener = listener;
  }

  removeListener(_event: 'abort', listener: Listener): void {
    if (this.#listener === listener) this.#listener = undefined;
  }

  /** The documented name of removeListener in Piscina's types. */
  off(event: 'abort', listener: Listener): void {
    this.removeListener(event, listener);
  }

  /** Piscina rejects the task and, when it is running, terminates its thread synchronously. */
  abort(): void {
    if (this.#aborted) return;
    this.#aborted = true;
    const listener = this.#listener;
    this.#listener = undefined;
    listener?.();
  }
}
