/**
 * How the pool executor aborts one Piscina task: the smallest object Piscina accepts as a task's
 * abort signal (its documented event-emitter form, `once` and `removeListener` of 'abort').
 *
 * Every blocking call needs one, and almost none is ever aborted. A real AbortController costs an
 * EventTarget, a listener registration and its removal on every call; measured over stdio, that was
 * about a fifth of what a trivial blocking call adds over the same tool run inline. This handle is
 * one object and one field.
 *
 * It also tells the executor when Piscina is done with the task: Piscina removes its abort listener
 * as it settles a task (result, failure or termination), synchronously, inside the handler of the
 * worker's answer, a microtask before the task's promise settles. The executor frees the thread's
 * slot there (pool-executor.ts, #settled). Should a Piscina ever remove it later, or never, the slot
 * is still freed when the promise settles, as before: `onSettled` is an early notice, not the only one.
 */
type Listener = () => void;

export class TaskAbortHandle {
  #listener: Listener | undefined;
  #aborted = false;
  #onSettled: (() => void) | undefined;

  constructor(onSettled?: () => void) {
    this.#onSettled = onSettled;
  }

  /** Read by Piscina before it starts a task: an aborted handle rejects the task at once. */
  get aborted(): boolean {
    return this.#aborted;
  }

  once(_event: 'abort', listener: Listener): void {
    this.#listener = listener;
  }

  /** Piscina's cleanup as the task settles; the first call tells `onSettled`. */
  removeListener(_event: 'abort', listener: Listener): void {
    if (this.#listener === listener) this.#listener = undefined;
    const onSettled = this.#onSettled;
    this.#onSettled = undefined;
    onSettled?.();
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
