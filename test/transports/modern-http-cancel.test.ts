/**
 * Over modern Streamable HTTP a client that closes its response stream cancels the call: a blocking
 * call's thread is stopped (the server's CPU goes idle within a second, both pool threads serve
 * again), an inline call's signal aborts, and nothing more is written for it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { McpServer } from '../../lib/index.js';
import { busy } from '../support/fixture-tools.js';
import { envelope, ModernHttpPeer, standardHeaders } from './modern-http-peer.js';

const inlineOutcomes: string[] = [];

/** CPU time the whole process (every thread) used per wall-clock ms over `ms`, in cores. */
async function coresUsedOver(ms: number): Promise<number> {
  const start = process.cpuUsage();
  const began = performance.now();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000 / (performance.now() - began);
}

async function until(condition: () => boolean, withinMs: number): Promise<number> {
  const began = performance.now();
  while (!condition()) {
    if (performance.now() - began > withinMs) throw new Error(`condition not met within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return performance.now() - began;
}

/** Starts a modern tools/call and resolves once its SSE stream is open (headers received). */
async function openCall(
  url: string,
  name: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
  accept?: string,
) {
  const params = { name, arguments: args, _meta: envelope() };
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: accept ?? 'application/json, text/event-stream',
      ...standardHeaders('tools/call', params),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }),
    signal,
  });
  return response;
}

describe('modern Streamable HTTP: closing the response stream cancels the call', () => {
  let server: McpServer;
  let url: string;
  before(async () => {
    server = new McpServer({ name: 'modern-cancel', version: '1', timeoutMs: 0, pool: { maxThreads: 2 } })
      .tool(busy)
      .tool({
        name: 'linger',
        description: 'Waits until cancelled (inline), recording how it ended',
        inputSchema: { type: 'object', properties: {} },
        handler: (_args, ctx) =>
          new Promise((_resolve, reject) => {
            ctx.signal.addEventListener('abort', () => {
              inlineOutcomes.push('aborted');
              reject(ctx.signal.reason);
            });
          }),
      });
    // A silent call's stream opens (its headers go out) at the first keep-alive: 300 ms here, where
    // the default 15 s made each test wait that long for the stream it closes.
    await server.listen({ http: { port: 0, keepAliveMs: 300 }, handleSignals: false });
    url = `http://127.0.0.1:${server.addresses.http!.port}/mcp`;
  });
  after(() => server.close());

  it('a blocking busy loop is stopped: CPU idle within 1 s, both pool threads serve again', async (t) => {
    const abort = new AbortController();
    try {
      const response = await openCall(url, 'busy', { ms: 600_000 }, abort.signal);
      assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
      await until(() => server.stats.freeThreads === 1, 5_000);
      // The machine is shared and pool threads run niced: a spinning thread gets what the scheduler
      // leaves it, at times a quarter of a core. The check after the cancel is relative to it.
      const spinning = await coresUsedOver(500);
      assert.ok(
        spinning > 0.1,
        `the busy loop should burn CPU before the cancel (used ${spinning.toFixed(2)})`,
      );

      abort.abort();
      const aborted = performance.now();
      const freedAfter = await until(
        () => server.stats.freeThreads === 2 && server.stats.inFlight === 0,
        1_000,
      );
      // The second half of the first second after the cancel (the pool's replacement thread has
      // started by then): nothing may still be spinning.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 500 - (performance.now() - aborted))));
      const idle = await coresUsedOver(500);
      assert.ok(
        idle < Math.min(0.2, spinning / 3),
        `the server should be idle after the cancel (used ${idle.toFixed(3)} cores, ${spinning.toFixed(2)} while spinning)`,
      );
      t.diagnostic(
        `before the cancel ${spinning.toFixed(2)} cores; both threads free ${freedAfter.toFixed(0)} ms after it; 0.5-1 s after it ${idle.toFixed(3)} cores`,
      );
    } finally {
      abort.abort();
    }

    // Both threads take work again, at the same time.
    const peer = new ModernHttpPeer(url);
    const calls = [0, 1].map(() => peer.request('tools/call', { name: 'busy', arguments: { ms: 1_000 } }));
    await until(() => server.stats.freeThreads === 0, 2_000);
    for (const reply of await Promise.all(calls)) {
      assert.equal(reply.status, 200);
      assert.match(reply.raw, /busy 1000/);
    }
  });

  it('a client that takes only JSON cancels the same way by closing the connection', async () => {
    const abort = new AbortController();
    const pending = openCall(url, 'busy', { ms: 600_000 }, abort.signal, 'application/json').catch(
      (error: Error) => error,
    );
    try {
      await until(() => server.stats.freeThreads === 1, 5_000);
    } finally {
      abort.abort();
    }
    assert.equal(((await pending) as Error).name, 'AbortError');
    await until(() => server.stats.freeThreads === 2 && server.stats.inFlight === 0, 1_000);
  });

  it("an inline call's signal aborts, and the server keeps serving", async () => {
    const abort = new AbortController();
    try {
      const response = await openCall(url, 'linger', {}, abort.signal);
      assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
    } finally {
      abort.abort();
    }
    await until(() => inlineOutcomes.includes('aborted'), 1_000);
    await until(() => server.stats.inFlight === 0, 1_000);
    const reply = await new ModernHttpPeer(url).request('tools/list');
    assert.equal(reply.status, 200);
  });
});
