/**
 * One running server, both eras at once: the official SDK 1.x client (legacy: initialize, a session)
 * and the SDK v2 client pinned to 2026-07-28 (stateless) talk to the same Streamable HTTP endpoint
 * side by side. Each gets the answers of its own era, neither disturbs the other, and a change made
 * through one is heard by both (in the legacy session, and on the modern client's listen stream).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttp,
} from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { listToolNames } from '../support/list-tools.js';
import { type ModernServerProcess, startModernServer } from './modern-server-process.js';

const text = (result: unknown) => (result as { content?: { text?: string }[] }).content?.[0]?.text ?? '';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await sleep(20);
}

describe('one server, the SDK 1.x client (legacy) and the SDK v2 client (2026-07-28) together', () => {
  let server: ModernServerProcess;
  let legacy: LegacyClient;
  let modern: ModernClient;
  let legacyTransport: LegacyHttp;
  before(async () => {
    server = await startModernServer();
    legacy = new LegacyClient({ name: 'weft-legacy-test', version: '1.0.0' });
    modern = new ModernClient(
      { name: 'weft-modern-test', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    legacyTransport = new LegacyHttp(server.url);
    await Promise.all([legacy.connect(legacyTransport), modern.connect(new ModernHttp(server.url))]);
  });
  after(async () => {
    await Promise.all([legacy.close(), modern.close()]);
    await server.stop();
  });

  it('each client is in its own era: a session for one, none for the other', () => {
    assert.equal(typeof legacyTransport.sessionId, 'string', 'the legacy client holds a session');
    assert.match(legacyTransport.protocolVersion ?? '', /^2025-/);
    assert.equal(modern.getProtocolEra(), 'modern');
    assert.equal(modern.getNegotiatedProtocolVersion(), '2026-07-28');
  });

  it('both list the same tools in the same order; the legacy client walks the pages itself', async () => {
    const [{ names, pages }, { tools }] = await Promise.all([listToolNames(legacy), modern.listTools()]);
    assert.equal(pages, 3);
    assert.deepEqual(names, [...names].sort());
    assert.deepEqual(
      tools.map((tool) => tool.name),
      names,
    );
  });

  it('serves both at once: interleaved calls get their own answers', async () => {
    const calls = Array.from({ length: 8 }, (_, index) =>
      index % 2 === 0
        ? legacy.callTool({ name: 'echo', arguments: { text: `legacy ${index}` } })
        : modern.callTool({ name: 'echo', arguments: { text: `modern ${index}` } }),
    );
    const answers = (await Promise.all(calls)).map(text);
    assert.deepEqual(
      answers,
      Array.from({ length: 8 }, (_, index) => `${index % 2 === 0 ? 'legacy' : 'modern'} ${index}`),
    );
    const fib = await legacy.callTool({ name: 'fib', arguments: { n: 20 } });
    assert.deepEqual(fib.structuredContent, { n: 20, value: 6765 });
  });

  it('a tool list change made through the legacy session reaches both eras', async () => {
    let legacyHeard = 0;
    let modernHeard = 0;
    legacy.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      legacyHeard++;
    });
    modern.setNotificationHandler('notifications/tools/list_changed', () => {
      modernHeard++;
    });
    const subscription = await modern.listen({ toolsListChanged: true });
    try {
      await legacy.callTool({ name: 'test_trigger_tool_change', arguments: {} });
      await until(() => legacyHeard > 0 && modernHeard > 0, 3_000);
      assert.equal(modernHeard, 1, 'the modern listen stream heard the change once');
      assert.equal(legacyHeard, 1, 'the legacy session heard the change once');
      const { names } = await listToolNames(legacy);
      assert.ok(names.includes('test_tool_toggled_by_trigger'));
    } finally {
      await subscription.close();
      await legacy.callTool({ name: 'test_trigger_tool_change', arguments: {} }); // toggle back
    }
  });

  it("cancelling the legacy client's runaway spin leaves the modern client's calls untouched", async () => {
    const controller = new AbortController();
    const runaway = legacy
      .callTool({ name: 'spin', arguments: { ms: 600_000 } }, undefined, { signal: controller.signal })
      .catch((error: unknown) => error);
    await sleep(300);
    const started = Date.now();
    const echo = await modern.callTool({ name: 'echo', arguments: { text: 'still here' } });
    assert.equal(text(echo), 'still here');
    assert.ok(Date.now() - started < 1_000, 'the modern call was not kept waiting by the spin');
    controller.abort('the user gave up');
    assert.ok((await runaway) instanceof Error);
    const spins = await Promise.all([
      modern.callTool({ name: 'spin', arguments: { ms: 200 } }),
      legacy.callTool({ name: 'spin', arguments: { ms: 200 } }),
    ]);
    for (const result of spins) assert.match(text(result), /spun 200 ms/);
  });
});
