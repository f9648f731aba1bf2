/**
 * When each HTTP request reached weft's door: the moment its 'request' event fired, before the
 * auth hook, the body's reading and parsing, the envelope's checks. A request's deadline counts
 * from there (the router's `arrivedAt`), so what the server did before its work could start (the
 * first request on a fresh server loading what it needs, a slow auth hook, a large body) is within
 * the deadline, not added to it. Kept beside the request object, gone with it.
 */
import type { IncomingMessage } from 'node:http';

const arrivals = new WeakMap<IncomingMessage, number>();

/** Notes that `request` arrives now; a request seen twice keeps its first arrival. */
export function markArrival(request: IncomingMessage): void {
  if (!arrivals.has(request)) arrivals.set(request, performance.now());
}

/** When `request` arrived (`performance.now()`), if its arrival was noted. */
export function arrivalOf(request: IncomingMessage | undefined): number | undefined {
  return request === undefined ? undefined : arrivals.get(request);
}
