/**
 * Reads a JSON request body with a size limit, or takes the one a framework already parsed
 * (Express's `express.json()`, Fastify's parser), so the handler can be mounted behind them.
 */
import type { IncomingMessage } from 'node:http';

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
    text = Buffer.isBuffer(parsed) ? parsed.toString('utf8') : (parsed as string);
    if (Buffer.byteLength(text) > maxBytes) return { kind: 'too-large', bytes: Buffer.byteLength(text) };
  } else {
    const declared = Number(request.headers['content-length']);
    if (declared > maxBytes) return { kind: 'too-large', bytes: declared };
    const chunks: Buffer[] = [];
    let bytes = 0;
    for await (const chunk of request) {
      bytes += (chunk as Buffer).length;
      if (bytes > maxBytes) return { kind: 'too-large', bytes };
      chunks.push(chunk as Buffer);
    }
    text = Buffer.concat(chunks).toString('utf8');
  }
  try {
    return { kind: 'ok', value: JSON.parse(text) };
  } catch (error) {
    return { kind: 'parse-error', detail: (error as Error).message };
  }
}
