/**
 * The storm itself, run in a child process by storm.test.ts so that a fatal error in Node ends
 * this process, which the test sees as a signal or an exit code, rather than the test runner.
 *
 * For `--seconds N` it keeps three kinds of churn going at once against real McpServers:
 * - short-lived servers: made, sent a burst of calls (1 ms deadlines of their own, short server
 *   deadlines, cancels at random moments) and closed at a random moment while the calls run, so
 *   that close() lands on threads that are starting, loading, running and in their grace;
 * - one long-lived server over Streamable HTTP (2026-07-28, stateless) with two threads, whose
 *   calls all time out (the demo's 150 ms against 2 s spins) or are dropped by their client, so
 *   that threads are terminated and replaced all the time;
 * - the same server's capped pool (heap caps of its own), which starts empty and grows on demand.
 * Then it checks that the long-lived server still answers normally, closes it, and prints one line
 * of JSON: how many requests were sent, answered, answered twice, cancelled by the client (which
 * may go unanswered), or never answered.
 */
import { parseArgs } from 'node:util';
import { McpServer } from '../../lib/index.js';
import type { JsonRpcMessage } from '../../lib/protocol/json-rpc.js';
import { stormTools } from './storm-tools.js';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '30' } } });
const until = Date.now() + Number(values.seconds) * 1000;

interface Reply {
  cancelled?: true;
  result?: { content?: { text?: string }[]; isError?: boolean };
  error?: { code: number; message: string };
}

const tally = {
  sent: 0,
  answered: 0,
  cancelled: 0,
  twice: 0,
  unanswered: 0,
  servers: 0,
  outcomes: {} as Record<string, number>,
};
const logged: string[] = [];

const random = (below: number) => Math.floor(Math.random() * below);
const pick = <T>(items: readonly T[]): T => items[random(items.length)]!;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function makeServer(timeoutMs: number, maxThreads: number): McpServer {
  tally.servers++;
  const server = new McpServer({
    name: 'storm',
    version: '1',
    timeoutMs,
    shutdownGraceMs: 0,
    pool: { maxThreads, graceMs: 20, maxQueue: 1000 },
    logError: (message) => {
      if (logged.length < 20) logged.push(message);
    },
  });
  for (const tool of stormTools) server.tool(tool);
  return server;
}

/** A client wired into a server, counting the answers each request id gets. */
class Client {
  readonly #answers = new Map<string, number>();
  readonly #waiting = new Map<string, (reply: Reply) => void>();
  readonly #connection;
  #next = 0;

  constructor(
    server: McpServer,
    readonly name: string,
  ) {
    this.#connection = server.connect({
      send: (message: JsonRpcMessage | JsonRpcMessage[]) => {
        for (const one of Array.isArray(message) ? message : [message]) {
          if (!('id' in one) || 'method' in one) continue;
          const id = String(one.id);
          const count = (this.#answers.get(id) ?? 0) + 1;
          this.#answers.set(id, count);
          if (count === 1) tally.answered++;
          else tally.twice++;
          this.#waiting.get(id)?.(one as Reply);
          this.#waiting.delete(id);
        }
      },
    });
  }

  request(method: string, params: Record<string, unknown>): { id: string; reply: Promise<Reply> } {
    const id = `${this.name}-${this.#next++}`;
    tally.sent++;
    const reply = new Promise<Reply>((resolve) => this.#waiting.set(id, resolve));
    void this.#connection.receive({ jsonrpc: '2.0', id, method, params });
    return { id, reply };
  }

  async initialize(): Promise<void> {
    await this.request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'storm', version: '1' },
    }).reply;
    void this.#connection.receive({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }

  /** A cancelled request may go unanswered (the client said it no longer wants the answer). */
  cancel(id: string): void {
    const waiter = this.#waiting.get(id);
    if (waiter === undefined) return; // answered already
    this.#waiting.delete(id);
    tally.cancelled++;
    waiter({ cancelled: true });
    void this.#connection.receive({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: id },
    });
  }

  /** Requests sent and never answered, once the server had every chance to answer. */
  get pending(): number {
    return this.#waiting.size;
  }
}

function outcomeOf(reply: Reply): string {
  if (reply.cancelled) return 'cancelled by the client';
  if (reply.error) return `error ${reply.error.code}`;
  const text = reply.result?.content?.[0]?.text ?? '';
  if (reply.result?.isError) return `tool error: ${text.replace(/[0-9]+/g, 'N').slice(0, 60)}`;
  return 'ok';
}

function count(reply: Reply): void {
  const key = outcomeOf(reply);
  tally.outcomes[key] = (tally.outcomes[key] ?? 0) + 1;
}

/** One short-lived server: a burst of calls, cancels at random moments, close() in the middle. */
async function shortLived(round: number): Promise<void> {
  // Deadlines from 1 ms to a quarter of a second: a new thread takes tens to hundreds of ms to
  // start and load, so these land at every moment of that load, and of the run after it.
  const server = makeServer(pick([1, 1 + random(250), 1 + random(250), 0]), 1 + random(3));
  const client = new Client(server, `short${round}`);
  await client.initialize();
  const calls: Promise<Reply>[] = [];
  for (let i = 0; i < 6 + random(8); i++) {
    const tool = pick(['spin', 'polite', 'hasty', 'capped', 'isolated', 'spin', 'hasty']);
    const { id, reply } = client.request('tools/call', {
      name: tool,
      arguments: { ms: pick([0, 2, 30, 400]) },
    });
    calls.push(
      reply.then((answer) => {
        count(answer);
        return answer;
      }),
    );
    if (Math.random() < 0.4) setTimeout(() => client.cancel(id), random(60));
  }
  // close() at a random moment: often before any thread has finished loading.
  await sleep(pick([0, 1, 5, 20, 80, 200]));
  await server.close();
  await Promise.race([Promise.all(calls), sleep(5_000)]);
  tally.unanswered += client.pending;
}

const MODERN = '2026-07-28';
const modernMeta = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'storm', version: '1' },
};

/** One stateless 2026-07-28 call over HTTP; an aborted fetch is the client going away. */
async function modernCall(url: string, tool: string, ms: number, signal?: AbortSignal): Promise<Reply> {
  tally.sent++;
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN,
        'mcp-method': 'tools/call',
        'mcp-name': tool,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: tool, arguments: { ms }, _meta: modernMeta },
      }),
      ...(signal ? { signal } : {}),
    });
    const text = await response.text();
    tally.answered++;
    const json = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? '{}');
    return JSON.parse(json) as Reply;
  } catch (error) {
    if (signal?.aborted) {
      tally.cancelled++;
      return { cancelled: true };
    }
    tally.unanswered++;
    return { error: { code: 0, message: String(error) } };
  }
}

/** Churn like the demo's over HTTP: 150 ms deadlines against 2 s spins, so threads die all the time. */
async function churn(url: string, stop: () => boolean): Promise<void> {
  while (!stop()) {
    const tool = pick(['spin', 'spin', 'spin', 'capped', 'polite']);
    const abort = Math.random() < 0.2 ? new AbortController() : undefined;
    if (abort) setTimeout(() => abort.abort(), random(150));
    count(await modernCall(url, tool, 2_000, abort?.signal));
  }
}

const progress = setInterval(() => process.stderr.write(`${JSON.stringify(tally)}\n`), 5_000);
progress.unref();
const longLived = makeServer(150, 2);
await longLived.listen({ http: { port: 0, host: '127.0.0.1' }, handleSignals: false });
const url = `http://127.0.0.1:${longLived.addresses.http!.port}/mcp`;
const over = () => Date.now() > until;
const churning = Array.from({ length: 8 }, () => churn(url, over));
let round = 0;
const rounds = Array.from({ length: 2 }, async () => {
  while (!over()) await shortLived(round++);
});
await Promise.all([...churning, ...rounds]);

// The long-lived server serves normally after all of that: every kind of tool answers. A first
// call may still meet a thread being replaced, so each gets a few tries.
const after: Record<string, string> = {};
for (const tool of ['spin', 'polite', 'capped', 'isolated']) {
  for (let attempt = 0; attempt < 10; attempt++) {
    const reply = await modernCall(url, tool, 5);
    after[tool] = reply.result?.content?.[0]?.text ?? JSON.stringify(reply);
    if (reply.result?.isError !== true && reply.result) break;
    await sleep(100);
  }
}
await longLived.close();
process.stdout.write(`${JSON.stringify({ ...tally, after, logged: logged.slice(0, 5) })}\n`);
