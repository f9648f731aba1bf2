/**
 * Issue 38, item 5 (results): a handler's bare bytes are never sent as a JSON dump of their numbers.
 * A PNG returned as a Buffer becomes an image block; bytes of no known format are refused with a
 * tool error naming the helpers; content built with imageContent, audioContent and blobResource
 * arrives intact. Inline, in a pool thread and in a pool process; in the legacy era through the
 * official SDK client over stdio, in the 2026-07-28 era over HTTP.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { McpServer } from '../../lib/index.js';
import { connectOverStdio, type StdioSession } from '../support/sdk-stdio.js';
import { ModernHttpPeer, type Wire } from '../transports/modern-http-peer.js';
import { binaryServer } from './binary-server.js';
import { PDF, PNG, WAV } from './binary-tools.js';

const SERVER = fileURLToPath(new URL('./binary-server.js', import.meta.url));
const PLACES = ['inline', 'thread', 'process'] as const;

type Call = (name: string) => Promise<Wire>;

function checks(call: () => Call): void {
  it('thread: a Proxy (plain to every read) is still refused as a value that cannot be sent', async () => {
    const result = await call()('proxy_thread');
    assert.equal(result.isError, true, JSON.stringify(result));
    assert.match(result.content[0].text, /cannot be sent as JSON/);
  });

  for (const where of PLACES) {
    it(`${where}: a PNG returned as a Buffer becomes an image block`, async () => {
      const result = await call()(`png_${where}`);
      assert.notEqual(result.isError, true, JSON.stringify(result));
      assert.deepEqual(result.content, [
        { type: 'image', data: PNG.toString('base64'), mimeType: 'image/png' },
      ]);
    });

    it(`${where}: bytes of no known format are refused, naming the helpers`, async () => {
      const result = await call()(`unknown_bytes_${where}`);
      assert.equal(result.isError, true, JSON.stringify(result));
      const text: string = result.content[0].text;
      assert.match(text, /5 bytes that are not an image or audio format/);
      assert.match(text, /imageContent\(bytes, mimeType\)/);
      assert.match(text, /blobResource\(bytes, \{ uri, mimeType \}\)/);
    });

    it(`${where}: imageContent, audioContent and blobResource arrive intact`, async () => {
      const result = await call()(`helpers_${where}`);
      assert.notEqual(result.isError, true, JSON.stringify(result));
      assert.deepEqual(result.content, [
        { type: 'image', data: PNG.toString('base64'), mimeType: 'image/png' },
        { type: 'audio', data: WAV.toString('base64'), mimeType: 'audio/wav' },
        {
          type: 'resource',
          resource: { uri: 'file:///report.pdf', mimeType: 'application/pdf', blob: PDF.toString('base64') },
        },
      ]);
    });
  }
}

describe('bytes as tool results, legacy era (official SDK client, stdio)', () => {
  let session: StdioSession;
  before(async () => {
    session = await connectOverStdio(SERVER, ['--stdio']);
  });
  after(() => session.close());
  checks(() => (name) => session.client.callTool({ name, arguments: {} }));
});

describe('bytes as tool results, 2026-07-28 era (HTTP)', () => {
  let server: McpServer;
  let peer: ModernHttpPeer;
  before(async () => {
    server = binaryServer();
    await server.listen({ http: { port: 0 }, handleSignals: false });
    peer = new ModernHttpPeer(`http://127.0.0.1:${server.addresses.http!.port}/mcp`);
  });
  after(() => server.close());
  checks(() => async (name) => {
    const reply = await peer.request('tools/call', { name, arguments: {} });
    assert.equal(reply.status, 200, reply.raw);
    return reply.body.result;
  });
});
