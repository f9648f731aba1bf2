/**
 * A modern request that arrives on a kept-alive connection while the answer before it is still
 * being written is answered too. Node queues such a request's response until the earlier one is
 * done (its `socket` is null meanwhile); a request taken for gone then was never answered, which
 * the payload benchmark met as a client waiting forever after 8 MiB answers (a keep-alive socket
 * reused the moment the last byte arrived, before the server's write had completed). Here two
 * requests are pipelined on one socket, the first slow, so the race is certain. A queued request
 * whose client leaves is cancelled (Node tells its response nothing), and a client that is really
 * gone before its body was read is still not served.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { McpServer } from '../../lib/index.js';
import { envelope, standardHeaders } from './modern-http-peer.js';

/** Calls of `quick` that ran (the slow tool's calls are not counted: one may end during a later test). */
let quickRuns = 0;
/** How each `linger` call ended. */
const lingered: string[] = [];

/** One modern tools/call as HTTP/1.1 request bytes (keep-alive, JSON answers only). */
function callBytes(id: number, name: string, args: Record<string, unknown>): string {
  const params = { name, arguments: args, _meta: envelope() };
  const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params });
  const headers = {
    host: '127.0.0.1',
    'content-type': 'application/json',
    accept: 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    ...standardHeaders('tools/call', params),
  };
  const head = Object.entries(headers)
    .map(([key, value]) => `${key}: ${value}`)
    .join('\r\n');
  return `POST /mcp HTTP/1.1\r\n${head}\r\n\r\n${body}`;
}

/** The JSON bodies of the complete HTTP responses in `raw`, in order (content-length or chunked). */
function responseBodies(raw: Buffer): unknown[] {
  const bodies: unknown[] = [];
  let at = 0;
  for (;;) {
    const end = raw.indexOf('\r\n\r\n', at);
    if (end === -1) return bodies;
    const head = raw.subarray(at, end).toString('latin1');
    let body: Buffer;
    if (/transfer-encoding: chunked/i.test(head)) {
      const chunks: Buffer[] = [];
      let from = end + 4;
      for (;;) {
        const line = raw.indexOf('\r\n', from);
        if (line === -1) return bodies;
        const size = Number.parseInt(raw.subarray(from, line).toString('latin1'), 16);
        if (line + 2 + size + 2 > raw.length) return bodies;
        chunks.push(raw.subarray(line + 2, line + 2 + size));
        from = line + 2 + size + 2;
        if (size === 0) break;
      }
      body = Buffer.concat(chunks);
      at = from;
    } else {
      const length = Number(/content-length: (\d+)/i.exec(head)?.[1]);
      if (Number.isNaN(length) || end + 4 + length > raw.length) return bodies;
      body = raw.subarray(end + 4, end + 4 + length);
      at = end + 4 + length;
    }
    bodies.push(JSON.parse(body.toString('utf8')));
  }
}

describe('modern Streamable HTTP on a kept-alive connection', () => {
  let server: McpServer;
  let port: number;
  before(async () => {
    server = new McpServer({ name: 'keep-alive', version: '1' })
      .tool({
        name: 'slow_text',
        description: 'Answers a text after a while',
        inputSchema: { type: 'object', properties: { ms: { type: 'number' } }, required: ['ms'] },
        handler: async ({ ms }) => {
          await new Promise((resolve) => setTimeout(resolve, ms));
          return 'x'.repeat(200_000);
        },
      })
      .tool({
        name: 'linger',
        description: 'Waits until cancelled, recording it',
        inputSchema: { type: 'object', properties: {} },
        handler: (_args, ctx) =>
          new Promise((_resolve, reject) => {
            ctx.signal.addEventListener('abort', () => {
              lingered.push('aborted');
              reject(ctx.signal.reason);
            });
          }),
      })
      .tool({
        name: 'quick',
        description: 'Answers at once',
        inputSchema: { type: 'object', properties: {} },
        handler: () => {
          quickRuns++;
          return 'quick';
        },
      });
    await server.listen({ http: { port: 0 }, handleSignals: false });
    port = server.addresses.http!.port;
  });
  after(() => server.close());

  it('answers a request that came while the answer before it was still going out', async () => {
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.write(callBytes(1, 'slow_text', { ms: 150 }) + callBytes(2, 'quick', {}));
    const deadline = Date.now() + 5_000;
    let bodies: unknown[] = [];
    while (bodies.length < 2 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      bodies = responseBodies(Buffer.concat(received));
    }
    socket.destroy();
    assert.equal(bodies.length, 2, `answers received: ${bodies.length} of 2`);
    const [first, second] = bodies as { id: number; result: { content: { text: string }[] } }[];
    assert.equal(first!.id, 1);
    assert.equal(first!.result.content[0]!.text.length, 200_000);
    assert.equal(second!.id, 2);
    assert.deepEqual(second!.result.content, [{ type: 'text', text: 'quick' }]);
  });

  it('cancels a queued request whose client leaves', async () => {
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    socket.write(callBytes(5, 'slow_text', { ms: 400 }) + callBytes(6, 'linger', {}));
    await new Promise((resolve) => setTimeout(resolve, 100));
    socket.destroy();
    const deadline = Date.now() + 2_000;
    while (lingered.length === 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    assert.deepEqual(lingered, ['aborted'], 'the queued call was not cancelled when its client left');
  });

  it('does not serve a client that left before its body was read', async () => {
    const before = quickRuns;
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    const bytes = callBytes(3, 'quick', {});
    // The head and half the body, then gone: the body is never complete.
    socket.write(bytes.slice(0, bytes.length - 10));
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(quickRuns, before, 'a request whose client left before its body arrived ran anyway');
    // The server still serves.
    const again = connect(port, '127.0.0.1');
    await once(again, 'connect');
    const received: Buffer[] = [];
    again.on('data', (chunk: Buffer) => received.push(chunk));
    again.write(callBytes(4, 'quick', {}));
    const deadline = Date.now() + 5_000;
    while (responseBodies(Buffer.concat(received)).length < 1 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    again.destroy();
    assert.equal((responseBodies(Buffer.concat(received))[0] as { id: number }).id, 4);
  });
});
