/**
 * What every POST goes through before its era is known: what the client accepts, the content type,
 * and the body read within its size limit and parsed. The answers to these failures are the same in
 * both eras (they happen before there is a message to belong to one): 406, 415, 413, 400.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode } from '../protocol/error-codes.js';
import { readJsonBody } from './http-body.js';
import { acceptOf, reply } from './http-replies.js';
import { drainBound, refuseOversizedBody } from './oversized-body.js';

export interface PostedMessage {
  /** The parsed JSON body: one message, or a legacy batch. */
  body: unknown;
  /** Whether the client takes an SSE stream as the answer (else only JSON). */
  acceptsSse: boolean;
}

/** The POST's body, or undefined after the client has been told what was wrong. */
export async function readPostedMessage(
  request: IncomingMessage,
  response: ServerResponse,
  maxBodyBytes: number,
): Promise<PostedMessage | undefined> {
  const accept = acceptOf(request);
  if (!accept.json && !accept.sse) {
    reply(
      response,
      406,
      ErrorCode.InvalidRequest,
      'Accept must include application/json and text/event-stream',
    );
    return undefined;
  }
  const type = request.headers['content-type'] ?? '';
  if (!type.toLowerCase().startsWith('application/json') && !('body' in request)) {
    reply(response, 415, ErrorCode.InvalidRequest, 'Content-Type must be application/json');
    return undefined;
  }
  const body = await readJsonBody(request, maxBodyBytes);
  if (body.kind === 'too-large') {
    const message =
      `Request body of ${body.bytes} bytes exceeds the ${maxBodyBytes}-byte limit: raise the server's ` +
      "maxMessageBytes option (or the HTTP transport's maxBodyBytes), or send large data as a resource link";
    const text = JSON.stringify({
      jsonrpc: '2.0',
      id: null,
      error: { code: ErrorCode.InvalidRequest, message },
    });
    refuseOversizedBody(request, response, text, drainBound(maxBodyBytes));
    return undefined;
  }
  if (body.kind === 'parse-error') {
    reply(response, 400, ErrorCode.ParseError, `Parse error: ${body.detail}`);
    return undefined;
  }
  return { body: body.value, acceptsSse: accept.sse };
}

/**
 * Most requests are answered within a turn of the event loop (a list, an inline echo): waiting that
 * long lets them get a plain JSON answer instead of the cost of a stream. True when `pending` settled
 * within the turn.
 */
export async function settlesWithinOneTurn(pending: Promise<void>): Promise<boolean> {
  let done = false;
  pending.then(() => {
    done = true;
  });
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}
