/**
 * Multi-round-trip requests end to end with the official SDK v2 client pinned to 2026-07-28, over
 * Streamable HTTP and stdio, against a weft server in a child process (test/e2e/mrtr-server.ts):
 * the client's own elicitation, sampling and roots handlers answer the server's `input_required`
 * rounds, inline, in pool threads and in a pool process, and the same handlers answer a legacy
 * 1.x client with real server-to-client requests. A blocking tool that is waiting for its answer
 * holds no pool thread.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, type JSONRPCMessage, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { MRTR_SERVER as SERVER, type ServerProcess, startMrtrServer } from './mrtr-server-process.js';

const PIN = { mode: { pin: '2026-07-28' } } as const;
const ALL_CAPABILITIES = { elicitation: {}, sampling: {}, roots: {} };
/** Long enough that a loaded machine cannot pass a serial pair off as parallel (spin's limit is 2 s). */
const SPIN_MS = 1_000;

const text = (result: unknown) => (result as { content?: { text?: string }[] }).content?.[0]?.text ?? '';

/** What the client's handlers were asked, in order. */
interface Asked {
  method: string;
  params: Record<string, unknown>;
}

/** Records the tools/call and prompts/get requests the client sends (one per round). */
function recordRounds(
  transport: { send(message: JSONRPCMessage, ...rest: never[]): Promise<void> },
  into: string[],
) {
  const send = transport.send.bind(transport);
  transport.send = (message, ...rest) => {
    if ('method' in message && 'id' in message && message.method !== 'server/discover')
      into.push(message.method);
    return send(message, ...rest);
  };
}

interface Connected {
  client: Client;
  asked: Asked[];
  rounds: string[];
  /** Runs inside the elicitation handler, while the server waits for the answer. */
  duringElicitation?: () => Promise<void>;
}

/** Registers a handler for each capability the client declares (the SDK refuses the others). */
function answering(client: Client, connected: Connected, capabilities: Record<string, unknown>): void {
  if (capabilities.elicitation) answerElicitations(client, connected);
  if (capabilities.sampling) {
    client.setRequestHandler('sampling/createMessage', async (request) => {
      connected.asked.push({
        method: 'sampling/createMessage',
        params: request.params as Record<string, unknown>,
      });
      return {
        role: 'assistant',
        content: { type: 'text', text: 'Bonjour' },
        model: 'test-model',
        stopReason: 'endTurn',
      };
    });
  }
  if (capabilities.roots) {
    client.setRequestHandler('roots/list', async (request) => {
      connected.asked.push({
        method: 'roots/list',
        params: (request.params ?? {}) as Record<string, unknown>,
      });
      return { roots: [{ uri: 'file:///work', name: 'work' }] };
    });
  }
}

function answerElicitations(client: Client, connected: Connected): void {
  client.setRequestHandler('elicitation/create', async (request) => {
    const params = request.params as Record<string, unknown>;
    connected.asked.push({ method: 'elicitation/create', params });
    await connected.duringElicitation?.();
    const schema = params.requestedSchema as { properties?: Record<string, unknown> };
    const field = Object.keys(schema?.properties ?? {})[0] ?? 'name';
    const values: Record<string, string | boolean> = {
      name: 'Alice',
      color: 'blue',
      context: 'tests',
      ok: true,
      go: true,
    };
    return { action: 'accept' as const, content: { [field]: values[field] ?? 'x' } };
  });
}

async function connect(
  way: 'Streamable HTTP' | 'stdio',
  url: string | undefined,
  capabilities: Record<string, unknown> = ALL_CAPABILITIES,
): Promise<Connected & { close(): Promise<void> }> {
  const client = new Client(
    { name: 'weft-mrtr-test', version: '1.0.0' },
    { capabilities, versionNegotiation: PIN },
  );
  const connected: Connected = { client, asked: [], rounds: [] };
  answering(client, connected, capabilities);
  const transport =
    way === 'stdio'
      ? new StdioClientTransport({ command: process.execPath, args: [SERVER, '--stdio'], stderr: 'pipe' })
      : new StreamableHTTPClientTransport(new URL(url!));
  recordRounds(transport, connected.rounds);
  await client.connect(transport);
  return Object.assign(connected, { close: () => client.close() });
}

for (const way of ['Streamable HTTP', 'stdio'] as const) {
  describe(`multi-round requests, SDK v2 client pinned to 2026-07-28, over ${way}`, () => {
    let server: ServerProcess | undefined;
    let peer: Awaited<ReturnType<typeof connect>>;
    before(async () => {
      if (way === 'Streamable HTTP') server = await startMrtrServer();
      peer = await connect(way, server?.url);
    });
    after(async () => {
      await peer.close();
      await server?.stop();
    });

    it('a blocking tool asks the user once: two rounds, and the answer reaches the handler', async () => {
      peer.asked.length = 0;
      peer.rounds.length = 0;
      const result = await peer.client.callTool({
        name: 'test_input_required_result_elicitation',
        arguments: {},
      });
      assert.equal(text(result), 'Hello, Alice!');
      assert.deepEqual(
        peer.asked.map(({ method }) => method),
        ['elicitation/create'],
      );
      assert.equal(peer.asked[0]!.params.message, 'What is your name?');
      assert.deepEqual(peer.rounds, ['tools/call', 'tools/call']);
    });

    it('Promise.all of elicit, sample and roots in a pool thread goes out as one round', async () => {
      peer.asked.length = 0;
      peer.rounds.length = 0;
      const result = await peer.client.callTool({
        name: 'test_input_required_result_multiple_inputs',
        arguments: {},
      });
      assert.equal(text(result), 'Bonjour Alice (1 root(s))');
      assert.deepEqual(peer.asked.map(({ method }) => method).sort(), [
        'elicitation/create',
        'roots/list',
        'sampling/createMessage',
      ]);
      assert.deepEqual(peer.rounds, ['tools/call', 'tools/call']);
    });

    it('sequential questions take a round each, and the code before them runs again each round', async () => {
      peer.rounds.length = 0;
      const result = await peer.client.callTool({
        name: 'test_input_required_result_multi_round',
        arguments: {},
      });
      assert.equal(text(result), 'Alice likes blue');
      assert.deepEqual(peer.rounds, ['tools/call', 'tools/call', 'tools/call']);
      const counted = await peer.client.callTool({ name: 'counted_question', arguments: {} });
      assert.match(text(counted), /^runs before the question: \d+; action: accept$/);
      const runs = Number(/runs before the question: (\d+)/.exec(text(counted))![1]);
      const again = await peer.client.callTool({ name: 'counted_question', arguments: {} });
      // Two runs per call: the round that asked, and the retry that got the answer.
      assert.equal(Number(/runs before the question: (\d+)/.exec(text(again))![1]), runs + 2);
    });

    it('the explicit form carries its own state, sealed, to the retry', async () => {
      const result = await peer.client.callTool({
        name: 'test_input_required_result_request_state',
        arguments: {},
      });
      assert.match(text(result), /^state-ok/);
    });

    it('a tool in a pool process asks, and its retry is a new pool call', async () => {
      const result = await peer.client.callTool({ name: 'ask_in_process', arguments: {} });
      assert.match(text(result), /^Hello from pid \d+, Alice!$/);
    });

    it('a prompt asks too', async () => {
      const prompt = await peer.client.getPrompt({ name: 'test_input_required_result_prompt' });
      const first = prompt.messages[0]!.content as { text?: string };
      assert.equal(first.text, 'Write with this context in mind: tests');
    });

    it('a resource reader asks too', async () => {
      peer.rounds.length = 0;
      const read = await peer.client.readResource({ uri: 'mrtr://roots' });
      assert.equal((read.contents[0] as { text?: string }).text, 'file:///work');
      assert.deepEqual(peer.rounds, ['resources/read', 'resources/read']);
    });

    it('a handler that needs a capability the client lacks ends with -32021 naming it', async () => {
      const bare = await connect(way, server?.url, { elicitation: {} });
      try {
        await assert.rejects(
          bare.client.callTool({ name: 'test_missing_capability', arguments: {} }),
          (error: { code?: number; data?: { requiredCapabilities?: Record<string, unknown> } }) => {
            assert.equal(error.code, -32021);
            assert.deepEqual(error.data?.requiredCapabilities, { sampling: {} });
            return true;
          },
        );
        // A handler that catches it does without: only sampling is asked for.
        const chosen = await connect(way, server?.url, { sampling: {} });
        try {
          const result = await chosen.client.callTool({
            name: 'test_input_required_result_capabilities',
            arguments: {},
          });
          assert.equal(text(result), 'Hello, Bonjour!');
          assert.deepEqual(
            chosen.asked.map(({ method }) => method),
            ['sampling/createMessage'],
          );
        } finally {
          await chosen.close();
        }
      } finally {
        await bare.close();
      }
    });
  });
}

describe('a blocking tool waiting for its answer holds no pool thread (modern, HTTP)', () => {
  let server: ServerProcess;
  let asker: Awaited<ReturnType<typeof connect>>;
  let other: Awaited<ReturnType<typeof connect>>;
  before(async () => {
    server = await startMrtrServer();
    asker = await connect('Streamable HTTP', server.url);
    other = await connect('Streamable HTTP', server.url);
  });
  after(async () => {
    await asker.close();
    await other.close();
    await server.stop();
  });

  it('frees both threads while the user is asked, and two spins run side by side meanwhile', async () => {
    let stats: { freeThreads: number; threads: number } | undefined;
    let spinMs = 0;
    asker.duringElicitation = async () => {
      stats = JSON.parse(text(await other.client.callTool({ name: 'pool_stats', arguments: {} })));
      const started = Date.now();
      // `spin` busy-waits on the wall clock: two at once take one spin's time only if both run.
      const spins = await Promise.all([
        other.client.callTool({ name: 'spin', arguments: { ms: SPIN_MS } }),
        other.client.callTool({ name: 'spin', arguments: { ms: SPIN_MS } }),
      ]);
      spinMs = Date.now() - started;
      for (const spin of spins) assert.match(text(spin), new RegExp(`^spun ${SPIN_MS} ms`));
    };
    const result = await asker.client.callTool({
      name: 'test_input_required_result_elicitation',
      arguments: {},
    });
    asker.duringElicitation = undefined;
    assert.equal(text(result), 'Hello, Alice!');
    assert.equal(stats?.threads, 2);
    assert.equal(stats?.freeThreads, 2, 'no thread is held while the answer is outstanding');
    // Run one after the other they would take 2 s at least; a loaded machine stretches a parallel pair less.
    assert.ok(spinMs < 1.9 * SPIN_MS, `two ${SPIN_MS} ms spins took ${spinMs} ms: they did not run at once`);
  });
});

describe('the same handlers in a legacy session (SDK 1.x client): real elicitation requests', () => {
  let server: ServerProcess;
  let client: LegacyClient;
  const asked: string[] = [];
  before(async () => {
    server = await startMrtrServer();
    client = new LegacyClient(
      { name: 'weft-legacy-test', version: '1.0.0' },
      { capabilities: { elicitation: {} } },
    );
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      const schema = (request.params as { requestedSchema?: { properties?: Record<string, unknown> } })
        .requestedSchema;
      const field = Object.keys(schema?.properties ?? {})[0]!;
      return { action: 'accept', content: { [field]: field === 'ok' ? true : 'Bob' } };
    });
    await client.connect(new LegacyHttpTransport(new URL(server.url)));
  });
  after(async () => {
    await client.close();
    await server.stop();
  });

  it('ctx.elicit in a pool thread sends elicitation/create and awaits it in one call', async () => {
    asked.length = 0;
    const result = await client.callTool({ name: 'test_input_required_result_elicitation', arguments: {} });
    assert.equal(text(result), 'Hello, Bob!');
    assert.deepEqual(asked, ['What is your name?']);
  });

  it("the explicit form's requests are sent live, then the handler runs again with the answers", async () => {
    asked.length = 0;
    const result = await client.callTool({ name: 'test_input_required_result_request_state', arguments: {} });
    assert.match(text(result), /^state-ok: .*ok=true/);
    assert.deepEqual(asked, ['Please confirm']);
  });

  it('a capability the client did not declare is a tool error the handler could catch', async () => {
    const result = await client.callTool({ name: 'test_missing_capability', arguments: {} });
    assert.equal(result.isError, true);
    assert.match(text(result), /"sampling" capability/);
  });
});
