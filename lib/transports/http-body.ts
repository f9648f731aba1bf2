/**
 * Reads a JSON request body with a size limit, or takes the one a framework already parsed
 * (Express's `express.json()`, Fastify's parser), so the handler can be mounted behind them.
 */
import type { IncomingMessage } from 'node:http';
import { utf8Text } from './utf8-text.js';

export type BodyOutcome =
  | { kind: 'ok'; value: unknown }
  | { kind: 'too-large'; bytes: number }
  | { kind: 'parse-error'; detail: string };

export async function readJsonBody(request: IncomingMessage, maxBytes: number): Promise<BodyOutcome> {
  const parsed = (request as IncomingMessage & { body?: unknown }).body;
  if (parsed !== undefined && !(typeof parsed === 'string' || Buffer.isBuffer(parsed))) {
    return { kind: 'ok', value: parsed };
  }
  let text: string;
  if (parsed !== undefined) {
    text = Buffer.isBuffer(parsed) ? utf8Text(parsed) : (parsed as string);
    if (Buffer.byteLength(text) > maxBytes) return { kind: 'too-large', bytes: Buffer.byteLength(text) };
  } else {
    const declared = Number(request.headers['content-length']);
    if (declared > maxBytes) return { kind: 'too-large', bytes: declared };
    const read = await readText(request, maxBytes);
    if (typeof read === 'number') return { kind: 'too-large', bytes: read };
    text = read;
  }
  try {
    return { kind: 'ok', value: JSON.parse(text) };
  } catch (error) {
    return { kind: 'parse-error', detail: (error as Error).message };
  }
}

/** The body as text, or the byte count at which it passed `maxBytes` (then the rest is not read). */
function readText(request: IncomingMessage, maxBytes: number): Promise<string | number> {
  // Plain listeners rather than an async iterator: this runs on every POST, and is measurably cheaper.
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > maxBytes) {
        request.off('data', onData);
        request.pause();
        resolve(bytes);
        return;
      }
      chunks.push(chunk);
    };
    request.on('data', onData);
    request.once('end', () => resolve(utf8Text(Buffer.concat(chunks))));
    request.once('error', reject);
    request.once('aborted', () => reject(new Error('The client aborted the request')));
  });
}
