/**
 * Ended legacy sessions give back all their memory: 100,000 sessions, each initialized, made to
 * store replay events and deleted through the Streamable HTTP handler's real code, leave live heap
 * where it was. A structure that outlives its session (a replay-budget entry, a map keyed by
 * session) shows here as bytes per ended session (before replay-budget entries were owned by their
 * store: ~340 B each).
 *
 * The churn runs in a child `node --expose-gc` (ended-sessions-churn.ts), in-process: over loopback
 * sockets 400,000 requests would take minutes. A small variant over a real socket checks the same
 * path end to end.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { McpServer } from '../../lib/index.js';
import { HttpPeer, messagesOf, readEvents } from './http-peer.js';

const SESSIONS = Number(process.env.WEFT_ENDED_SESSIONS ?? 100_000);
/** What a heap measurement wobbles by (code caches, timers' lists): ~10 bytes a session. */
const SLACK_BYTES = 1024 * 1024;
const CHILD = fileURLToPath(new URL('./ended-sessions-churn.js', import.meta.url));

function runChurn(sessions: number): Promise<{ seconds: number; baseline: number; after: number }> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--expose-gc', CHILD, String(sessions)],
      { timeout: 120_000, maxBuffer: 1 << 20 },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`churn child failed: ${error.message}\n${stderr}`));
        resolve(JSON.parse(stdout.trim().split('\n').at(-1)!));
      },
    );
  });
}

describe('ended legacy sessions', () => {
  it(`leave live heap at its baseline after ${SESSIONS.toLocaleString('en')} sessions`, async () => {
    const { seconds, baseline, after } = await runChurn(SESSIONS);
    const grown = after - baseline;
    const perSession = grown / SESSIONS;
    process.stdout.write(
      `# ${SESSIONS} sessions in ${seconds.toFixed(1)} s; live heap ${(baseline / 2 ** 20).toFixed(1)} -> ${(after / 2 ** 20).toFixed(1)} MiB (${perSession.toFixed(1)} B per ended session)\n`,
    );
    assert.ok(
      grown < SLACK_BYTES,
      `live heap grew ${(grown / 2 ** 20).toFixed(2)} MiB over ${SESSIONS} ended sessions (${perSession.toFixed(1)} B each)`,
    );
  });

  it('end over a real socket, each call answered on its stream', async () => {
    const server = new McpServer({ name: 'churn', version: '1.0.0' }).tool({
      name: 'step',
      description: 'Reports progress, then answers a turn later',
      inputSchema: { type: 'object', properties: {} },
      handler: async (_args, ctx) => {
        ctx.progress(1, 2, 'half');
        await new Promise((resolve) => setTimeout(resolve, 1));
        return 'done';
      },
    });
    await server.listen({ http: { port: 0 }, handleSignals: false });
    try {
      const url = `http://127.0.0.1:${server.addresses.http!.port}/mcp`;
      const step = {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'step', arguments: {}, _meta: { progressToken: 1 } },
      };
      for (let n = 0; n < 50; n++) {
        const peer = new HttpPeer(url);
        await peer.initialize();
        const events = await readEvents(await peer.post(step));
        assert.equal(messagesOf(events).at(-1).result.content[0].text, 'done');
        assert.equal((await peer.delete()).status, 200);
        assert.equal((await peer.post(step)).status, 404, 'the session is gone');
      }
      assert.equal(server.stats.inFlight, 0);
    } finally {
      await server.close();
    }
  });
});
