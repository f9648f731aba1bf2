/**
 * A message over the size limit gets an answer its sender can use, on every transport a real client
 * takes: over HTTP every oversized body gets its 413 (never a reset while it is still uploading, seen
 * as EPIPE / "fetch failed"), naming the option that sets the limit; over stdio the official client
 * gets its request's error at once instead of waiting for its own timeout.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { LineSplitter } from '../../lib/transports/line-splitter.js';
import { connectOverStdio, DEMO_SERVER } from '../support/sdk-stdio.js';
import { type DemoProcess, startDemo } from './demo-process.js';

// Over the demo's limit (the default maxMessageBytes, 16 MiB), as a 22 MB image in base64 would be.
const OVERSIZED = 30_000_000;

function oversizedCall(id: number): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'regional_echo', arguments: { region: 'eu', text: 'x'.repeat(OVERSIZED) } },
  });
}

describe('an oversized HTTP body', () => {
  let demo: DemoProcess;
  before(async () => {
    demo = await startDemo();
  });
  after(() => demo.stop());

  const post = (body: string | ReadableStream<Uint8Array>, extra: RequestInit = {}) =>
    fetch(demo.httpUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
      body,
      ...extra,
    });

  it('is answered 413 every time, 100 bodies of 30 MB in a row, naming maxMessageBytes', async () => {
    const body = oversizedCall(1);
    const outcomes: Record<string, number> = {};
    let message = '';
    for (let i = 0; i < 100; i++) {
      let outcome: string;
      try {
        const response = await post(body);
        outcome = String(response.status);
        message = ((await response.json()) as { error: { message: string } }).error.message;
      } catch (error) {
        outcome = `${(error as Error).message} (${(error as { cause?: { code?: string } }).cause?.code})`;
      }
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    }
    assert.deepEqual(outcomes, { 413: 100 });
    assert.match(message, /exceeds the 16777216-byte limit: raise the server's maxMessageBytes option/);
  });

  it('is answered 413 when it is streamed without a Content-Length', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(1024 * 1024));
    for (let i = 0; i < 5; i++) {
      let sent = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent === 0) controller.enqueue(new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"params":"'));
          if (sent >= 30) return controller.close();
          sent++;
          controller.enqueue(chunk);
        },
      });
      const response = await post(stream, { duplex: 'half' } as RequestInit);
      assert.equal(response.status, 413);
      await response.text();
    }
  });

  it('leaves the server serving', async () => {
    const client = new Client({ name: 'weft-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(demo.httpUrl));
    assert.ok((await client.listTools()).tools.length > 0);
    await client.close();
  });
});

describe('an oversized stdio message', () => {
  it('is answered with its request id, so the official client gets the error instead of a timeout', async () => {
    const session = await connectOverStdio(DEMO_SERVER, ['--stdio']);
    try {
      const started = Date.now();
      const refused = await session.client
        .callTool(
          { name: 'regional_echo', arguments: { region: 'eu', text: 'x'.repeat(17_000_000) } },
          undefined,
          {
            timeout: 30_000,
          },
        )
        .then(
          () => assert.fail('an oversized call was accepted'),
          (error: unknown) => error,
        );
      assert.ok(refused instanceof McpError);
      assert.equal(refused.code, -32600);
      assert.match(refused.message, /16777216-byte limit: raise the server's maxMessageBytes option/);
      // Not the client's own timeout: the answer came back.
      assert.ok(Date.now() - started < 30_000);
      // The stream goes on: the next request is served.
      assert.ok((await session.client.listTools()).tools.length > 0);
    } finally {
      await session.close();
    }
  });
});

describe('the id of an oversized line', () => {
  const LIMIT = 1024;
  const refusal = (line: string, chunkBytes = 100) => {
    const splitter = new LineSplitter(LIMIT);
    const bytes = Buffer.from(`${line}\n`);
    const events = [];
    for (let at = 0; at < bytes.length; at += chunkBytes) {
      events.push(...splitter.push(bytes.subarray(at, at + chunkBytes)));
    }
    assert.equal(events.length, 1);
    assert.equal(events[0]!.kind, 'too-large');
    return (events[0] as { id: unknown }).id;
  };
  const filler = 'y'.repeat(5_000);

  it('is read where clients write it: first, after jsonrpc, or last', () => {
    assert.equal(refusal(`{"id":7,"method":"tools/call","params":{"t":"${filler}"}}`), 7);
    assert.equal(refusal(`{"jsonrpc":"2.0", "id": "a-1","params":{"t":"${filler}"}}`), 'a-1');
    assert.equal(refusal(`{"method":"tools/call","params":{"t":"${filler}"},"jsonrpc":"2.0","id":42}`), 42);
    assert.equal(refusal(`{"method":"tools/call","params":{"t":"${filler}"},"id":43}`, 1), 43);
    assert.equal(refusal(`{"method":"x","params":{"t":"${filler}"},"id":44}`, 7_000), 44);
  });

  it('is null when only a nested object or a string holds an "id"', () => {
    assert.equal(refusal(`{"method":"x","params":{"t":"${filler}","id":5}}`), null);
    assert.equal(refusal(`{"method":"x","params":{"t":"${filler}\\",\\"id\\":5}"}}`), null);
    assert.equal(refusal(`{"method":"x","params":"${filler}"}`), null);
  });
});
