/**
 * The demo server's `regional_echo` over modern HTTP, as a 2026-07-28 client sees it: the tool lists
 * its `x-mcp-header` annotation verbatim, a call that mirrors `region` into `Mcp-Param-Region` (plain
 * or in the Base64 sentinel) is served, and one whose header is missing or disagrees is refused.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { encodeHeaderValue } from '../../lib/protocol/mcp-param-headers.js';
import { type DemoProcess, startDemo } from './demo-process.js';
import { ModernHttpPeer, type Wire } from './modern-http-peer.js';

describe('the demo regional_echo tool over modern HTTP', () => {
  let demo: DemoProcess;
  let peer: ModernHttpPeer;
  before(async () => {
    demo = await startDemo();
    peer = new ModernHttpPeer(demo.httpUrl.href);
  });
  after(() => demo.stop());

  it('lists its x-mcp-header annotation as written', async () => {
    const tools: Wire[] = [];
    let cursor: string | undefined;
    do {
      const reply = await peer.request('tools/list', cursor === undefined ? {} : { cursor });
      tools.push(...reply.body.result.tools);
      cursor = reply.body.result.nextCursor;
    } while (cursor !== undefined);
    const regional = tools.find((tool) => tool.name === 'regional_echo');
    assert.equal(regional.inputSchema.properties.region['x-mcp-header'], 'Region');
  });

  it('serves a call whose region is mirrored, plain or Base64-encoded', async () => {
    for (const region of ['us-west1', 'São Paulo']) {
      const reply = await peer.request(
        'tools/call',
        { name: 'regional_echo', arguments: { region, text: 'hi' } },
        { 'mcp-param-region': encodeHeaderValue(region) },
      );
      assert.equal(reply.status, 200, reply.raw);
      assert.equal(reply.body.result.content[0].text, `[${region}] hi`);
    }
  });

  it('refuses a call whose header is missing or routes elsewhere', async () => {
    const args = { name: 'regional_echo', arguments: { region: 'us-west1', text: 'hi' } };
    const attempts: Record<string, string>[] = [{}, { 'mcp-param-region': 'eu-west1' }];
    for (const headers of attempts) {
      const reply = await peer.request('tools/call', args, headers);
      assert.equal(reply.status, 400);
      assert.equal(reply.body.error.code, -32020);
    }
  });
});
