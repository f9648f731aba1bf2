/**
 * transformTool over a blocking tool: the renamed, defaulted and hidden arguments reach the pooled
 * original in its own names (mapped before the hop), the original's deadline still terminates
 * its runaway thread, and a custom handler's forward runs the original in the pool with what
 * remains of the call's deadline and the call's cancel. Through weft/client (2026-07-28) and the
 * official SDK 1.x client (2025-11-25).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client as Sdk1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as Sdk1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connect, type McpClient } from '../../lib/client/index.js';
import { McpServer, transformTool } from '../../lib/index.js';
import { askBlocking } from '../support/fixture-tools.js';
import { spinArgs } from './transform-fixtures.js';

const text = (result: Record<string, unknown>) =>
  (result.content as { text?: string }[]).map((block) => block.text).join('|');

let server: McpServer;
let client: McpClient;
let url: string;

/** Waits until the pool's only thread slot is free again; returns how long that took. */
async function slotBack(since: number, within: number): Promise<number> {
  while (server.stats.freeThreads === 0) {
    assert.ok(Date.now() - since < within, `the thread slot came back within ${within} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return Date.now() - since;
}

before(async () => {
  // One thread and a grace far longer than any test: a slot that comes back quickly came back
  // because the runaway's thread was terminated, not because it finished.
  server = new McpServer({ name: 'transform', version: '0.0.0', pool: { maxThreads: 1, graceMs: 30_000 } });
  server.tool(
    transformTool(spinArgs, {
      name: 'spin',
      description: 'Spins',
      args: {
        ms: { rename: 'duration', description: 'How long, in ms' },
        label: { default: 'L' },
        mode: { hide: true, default: 'fast' },
      },
    }) as never,
  );
  server.tool(
    transformTool(spinArgs, {
      name: 'spin_twice',
      args: { mode: { hide: true, default: 'slow' } },
      handler: async (args, _ctx, forward) =>
        `${await forward(args)} + ${await forward({ ...args, ms: 1, label: 'again' })}`,
    }) as never,
  );
  server.tool(
    transformTool(spinArgs, {
      name: 'spin_bad_forward',
      args: { mode: { hide: true, default: 'slow' } },
      handler: (args, _ctx, forward) => forward({ ...args, ms: 'soon' }),
    }) as never,
  );
  server.tool(
    transformTool(askBlocking, {
      name: 'ask_forwarded',
      handler: async (args, _ctx, forward) => `forwarded ${await forward(args)}`,
    }) as never,
  );
  await server.listen({ http: { port: 0, host: '127.0.0.1' } });
  url = `http://127.0.0.1:${server.addresses.http?.port}/mcp`;
  client = await connect(url, { protocol: 'modern' });
});
after(async () => {
  await client.close();
  await server.close();
});

describe('a transformed blocking tool', () => {
  test('publishes the derived schema', async () => {
    const spin = (await client.listTools()).find((tool) => tool.name === 'spin');
    assert.equal(spin?.description, 'Spins');
    assert.deepEqual(spin?.inputSchema, {
      type: 'object',
      properties: {
        duration: { type: 'integer', minimum: 0, description: 'How long, in ms' },
        label: { type: 'string', default: 'L' },
      },
      required: ['duration'],
      additionalProperties: false,
    });
  });

  test('runs in the pool with the arguments mapped back to the original names', async () => {
    assert.equal(text(await client.callTool('spin', { duration: 5 })), 'L:fast:5:pool');
    assert.equal(text(await client.callTool('spin', { duration: 5, label: 'x' })), 'x:fast:5:pool');
  });

  test('validates against the derived schema: old names, hidden arguments and bad types are refused', async () => {
    for (const [args, why] of [
      [{ ms: 5 }, /required property 'duration'|duration/],
      [{ duration: 5, ms: 5 }, /ms/],
      [{ duration: 5, mode: 'secret' }, /mode/],
      [{ duration: 'soon' }, /integer|duration/],
    ] as const) {
      const refused = await client.callTool('spin', args);
      assert.equal(refused.isError, true, JSON.stringify(args));
      assert.match(text(refused), /Invalid arguments for tool "spin"/);
      assert.match(text(refused), why);
    }
  });

  test("the original's deadline still terminates its thread", async () => {
    const started = Date.now();
    const result = await client.callTool('spin', { duration: 60_000 });
    const answeredAfter = Date.now() - started;
    assert.equal(result.isError, true);
    assert.match(text(result), /timed out.*1500 ms/);
    assert.ok(answeredAfter < 10_000, `answered after ${answeredAfter} ms`);
    await slotBack(started, 15_000);
    assert.equal(
      text(await client.callTool('spin', { duration: 1 })),
      'L:fast:1:pool',
      'a fresh thread serves on',
    );
  });

  test('works the same for a 2025-11-25 client (official SDK 1.x)', async () => {
    const sdk = new Sdk1Client({ name: 'sdk1', version: '0.0.0' });
    await sdk.connect(new Sdk1Http(new URL(url)));
    try {
      const result = await sdk.callTool({ name: 'spin', arguments: { duration: 3, label: 'sdk' } });
      assert.equal(text(result), 'sdk:fast:3:pool');
      const twice = await sdk.callTool({ name: 'spin_twice', arguments: { ms: 2 } });
      assert.equal(text(twice), '-:slow:2:pool + again:slow:1:pool');
    } finally {
      await sdk.close();
    }
  });
});

describe('a custom handler over a blocking tool', () => {
  test('runs on the main thread and forward reaches the pooled original', async () => {
    assert.equal(text(await client.callTool('spin_twice', { ms: 4 })), '-:slow:4:pool + again:slow:1:pool');
  });

  test('forward gets what remains of the deadline, which terminates the thread', async () => {
    const started = Date.now();
    const result = await client.callTool('spin_twice', { ms: 60_000 });
    assert.equal(result.isError, true);
    assert.match(text(result), /timed out/);
    await slotBack(started, 15_000);
    assert.equal(text(await client.callTool('spin_twice', { ms: 1 })), '-:slow:1:pool + again:slow:1:pool');
  });

  test("the client's cancel reaches the forwarded call's thread", async () => {
    const abort = new AbortController();
    const call = client.callTool('spin_twice', { ms: 60_000 }, { signal: abort.signal });
    call.catch(() => {});
    const started = Date.now();
    while (server.stats.freeThreads !== 0) {
      assert.ok(Date.now() - started < 5_000, 'the forwarded call took the thread');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const cancelledAt = Date.now();
    abort.abort();
    await assert.rejects(call);
    const freedAfter = await slotBack(cancelledAt, 5_000);
    assert.ok(freedAfter < 5_000, `slot back ${freedAfter} ms after the cancel (grace is 30 s)`);
  });

  test("forward's arguments are checked against the original's schema", async () => {
    const result = await client.callTool('spin_bad_forward', { ms: 1 });
    assert.equal(result.isError, true);
    assert.match(text(result), /forward to "spin_args".*ms/);
  });
});

describe("a pooled original's question through forward", () => {
  for (const protocol of ['modern', 'legacy'] as const) {
    test(`reaches a ${protocol} client and its answer reaches the original`, async () => {
      const asked: string[] = [];
      const asking = await connect(url, {
        protocol,
        onElicitation: async (params: Record<string, unknown>) => {
          asked.push(String(params.message));
          return { action: 'accept' as const, content: { name: 'grace' } };
        },
      });
      try {
        const result = await asking.callTool('ask_forwarded', {});
        assert.equal(text(result), 'forwarded accept: {"name":"grace"}');
        assert.deepEqual(asked, ['Your name?'], 'asked once');
      } finally {
        await asking.close();
      }
    });
  }
});

describe('transformTool refuses mistakes when the tool is made', () => {
  test('with actionable messages', () => {
    assert.throws(
      () => transformTool(spinArgs, { args: { mode: { hide: true } } }),
      /args\.mode: a hidden argument needs a default, since no caller can send it; add default/,
    );
    assert.throws(
      () => transformTool(spinArgs, { args: { nope: { rename: 'x' } } }),
      /no argument "nope" \(its arguments: ms, label, mode\)/,
    );
    assert.throws(() => transformTool(spinArgs, { args: { ms: { rename: 'label' } } }), /already taken/);
    assert.throws(
      () => transformTool(spinArgs, { args: { ms: { renam: 'x' } } as never }),
      /unknown option "renam"/,
    );
  });
});
