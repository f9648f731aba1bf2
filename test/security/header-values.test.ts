/**
 * Item 1 of the hardening issue: MCP header values are trimmed and parsed in linear time, and a value
 * longer than the cap is refused with 400 and a message naming the limit, before anything reads it.
 * A trim regex with two unbounded alternations (`/^[ \t]+|[ \t]+$/`) took quadratic time on a value
 * made of spaces between two letters: 15,500 spaces cost about 205 ms of event loop.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { McpServer } from '../../lib/index.js';
import { decodeHeaderValue } from '../../lib/protocol/mcp-param-headers.js';
import { checkModernRequest, type ModernRouting } from '../../lib/transports/modern-request-checks.js';
import { envelope, ModernHttpPeer } from '../transports/modern-http-peer.js';

const routing: ModernRouting = {
  knows: () => true,
  headerParamsOf: () => [],
  requiredScopes: () => undefined,
};

/** Milliseconds `run` takes. */
function timed(run: () => void): number {
  const start = performance.now();
  run();
  return performance.now() - start;
}

describe('security: header values cost linear time', () => {
  it('a value of 60,000 spaces between two letters is decoded in linear time', () => {
    const value = `a${' '.repeat(60_000)}a`;
    let decoded: ReturnType<typeof decodeHeaderValue> | undefined;
    const ms = timed(() => {
      decoded = decodeHeaderValue(value);
    });
    assert.ok(ms < 100, `decoding took ${ms.toFixed(1)} ms`);
    assert.deepEqual(decoded, { ok: true, value });
  });

  it('optional whitespace around a value is still ignored, inner whitespace kept', () => {
    assert.deepEqual(decodeHeaderValue(' \t a  b \t '), { ok: true, value: 'a  b' });
    assert.deepEqual(decodeHeaderValue(' '.repeat(50_000)), { ok: true, value: '' });
  });

  it('every MCP header longer than the cap is refused as -32600 naming the limit, quickly', () => {
    const long = `a${' '.repeat(40_000)}a`;
    for (const name of ['mcp-protocol-version', 'mcp-method', 'mcp-name', 'mcp-param-region']) {
      const headers = {
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'echo',
        [name]: long,
      };
      let refusal: ReturnType<typeof checkModernRequest>;
      const ms = timed(() => {
        refusal = checkModernRequest(headers, 'tools/call', { name: 'echo', _meta: envelope() }, routing);
      });
      assert.ok(ms < 100, `${name}: the check took ${ms.toFixed(1)} ms`);
      assert.equal(refusal?.error.code, -32600, `${name}: ${refusal?.error.message}`);
      assert.match(
        refusal!.error.message,
        new RegExp(`${name} header is 40002 characters long.*at most \\d+`),
      );
    }
  });
});

describe('security: an overlong MCP header on the wire', () => {
  let server: McpServer;
  let peer: ModernHttpPeer;
  before(async () => {
    server = new McpServer({ name: 'header-values', version: '1' }).tool({
      name: 'echo',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
      handler: ({ text }) => text ?? '',
    });
    await server.listen({ http: { port: 0 }, handleSignals: false });
    peer = new ModernHttpPeer(`http://127.0.0.1:${server.addresses.http!.port}/mcp`);
  });
  after(() => server.close());

  it('a 15,500-space MCP-Protocol-Version is answered 400 with the limit, and the server serves on', async () => {
    const reply = await peer.request('tools/list', {}, { 'mcp-protocol-version': `a${' '.repeat(15_500)}a` });
    assert.equal(reply.status, 400, reply.raw);
    assert.equal(reply.body.error.code, -32600, reply.raw);
    assert.match(reply.body.error.message, /mcp-protocol-version header is 15502 characters long/);
    const normal = await peer.request('tools/call', { name: 'echo', arguments: { text: 'hi' } });
    assert.equal(normal.status, 200, normal.raw);
    assert.equal(normal.body.result.content[0].text, 'hi');
  });

  it('a value within the cap, padded with whitespace, is trimmed and accepted', async () => {
    const padded = ` ${' '.repeat(8000)}tools/call${'\t'.repeat(2000)}`;
    const reply = await peer.request(
      'tools/call',
      { name: 'echo', arguments: { text: 'ok' } },
      { 'mcp-method': padded },
    );
    assert.equal(reply.status, 200, reply.raw);
    assert.equal(reply.body.result.content[0].text, 'ok');
  });
});
