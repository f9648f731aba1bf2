/**
 * Answers a POST whose body is over the limit so that the client really receives its 413.
 *
 * Closing the connection as soon as the 413 is written is not enough: the client is usually still
 * uploading, and once the server's socket is gone the kernel answers the next bytes with a reset, so
 * the client sees EPIPE ("fetch failed") instead of the answer. So the 413 is written at once (with
 * its length, so the client has all of it), and the rest of the body is read and thrown away before
 * the connection is closed. Throwing away is bounded: past `drainBytes` the connection is closed
 * anyway, since reading without end would let any client keep the server busy.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** How much of an oversized body is read and discarded at most: four times the limit, at least 64 MiB. */
export function drainBound(maxBodyBytes: number): number {
  return Math.max(4 * maxBodyBytes, 64 * 1024 * 1024);
}

/** Writes `text` as a 413 and ends the exchange once the rest of the body is read (or past the bound). */
export function refuseOversizedBody(
  request: IncomingMessage,
  response: ServerResponse,
  text: string,
  drainBytes: number,
): void {
  response.writeHead(413, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    connection: 'close',
  });
  response.write(text);
  if (request.complete || request.destroyed) {
    response.end();
    return;
  }
  let drained = 0;
  const finish = () => {
    request.off('data', discard);
    if (!response.writableEnded) response.end();
  };
  const discard = (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > drainBytes) finish();
  };
  request.on('data', discard);
  request.once('end', finish);
  request.once('close', finish);
  request.once('error', finish);
  request.resume();
}
