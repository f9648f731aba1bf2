/**
 * bullmq and ioredis are optional peers: a server that uses neither the fleet nor RedisTaskStore
 * runs without them on disk, and one that does fails at start saying `npm install bullmq ioredis`.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { McpServer, RedisTaskStore } from '../../lib/index.js';
import { resolvePeersFrom } from '../../lib/optional-peers.js';

const INSTALL = /npm install bullmq ioredis/;

describe('without bullmq and ioredis', () => {
  let undo: (() => void) | undefined;
  after(() => undo?.());

  it('RedisTaskStore says what to install when it is built', () => {
    undo = resolvePeersFrom({ ioredis: 'weft-test-absent-ioredis' });
    try {
      assert.throws(() => new RedisTaskStore({ url: 'redis://127.0.0.1:1' }), INSTALL);
    } finally {
      undo();
    }
  });

  for (const absent of ['ioredis', 'bullmq'] as const) {
    it(`a server with a fleet fails at listen when ${absent} is missing, saying what to install`, async () => {
      undo = resolvePeersFrom({ [absent]: `weft-test-absent-${absent}` });
      const server = new McpServer({
        name: 'fleet-without-peers',
        version: '1',
        pool: { maxThreads: 1 },
        fleet: { redis: 'redis://127.0.0.1:1' },
      });
      try {
        await assert.rejects(server.listen({ handleSignals: false }), INSTALL);
      } finally {
        undo();
        await server.close();
      }
    });
  }

  it('weft loads and serves calls with neither resolvable', async () => {
    const hook = fileURLToPath(new URL('../support/without-redis-packages.js', import.meta.url));
    const index = new URL('../../lib/index.js', import.meta.url).href;
    const script = `
      const { McpServer } = await import(${JSON.stringify(index)});
      let failed = false;
      try { await import('ioredis'); } catch { failed = true; }
      if (!failed) throw new Error('the hook did not hide ioredis');
      const server = new McpServer({ name: 'light', version: '1', pool: { maxThreads: 1 } })
        .tool({ name: 'echo', inputSchema: { type: 'object' }, handler: () => 'inline ok' });
      const answers = [];
      const connection = server.connect({ send: (message) => answers.push(message) });
      await connection.receive({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {
        protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
      await connection.receive({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: {} } });
      process.stdout.write(answers.at(-1).result.content[0].text);
      await server.close();
    `;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', hook, '--input-type=module', '-e', script],
      { timeout: 30_000 },
    );
    assert.equal(stdout, 'inline ok');
  });
});
