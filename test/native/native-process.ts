/**
 * The native suite's server in a child process, seen from outside: its URL, what it printed, its
 * CPU time and its processes and threads read from /proc, its probes, and official SDK clients that
 * count every answer they receive by request id (a call must be answered once, never twice).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { descendantsOf } from '../../lib/engine/process-tree.js';
import { cpuTicks } from '../support/cpu-ticks.js';
import { startReadyChild } from '../support/ready-child.js';

const SERVER = fileURLToPath(new URL('./native-server.js', import.meta.url));

export interface NativeServer {
  readonly url: URL;
  readonly pid: number;
  output(): string;
  /** The server process has ended (exited or killed by a signal, SIGABRT included). */
  ended(): string | undefined;
  /** Processes under the server now. */
  processes(): number[];
  /** OS threads of the server process now. */
  threads(): number;
  probe(path: '/readyz' | '/healthz'): Promise<{ status: number; body: string }>;
  /** `server.stats`, asked for by signal and read from stderr. */
  stats(): Promise<{ lostSlots: number; freeThreads: number }>;
  stop(): Promise<void>;
}

export async function startNativeServer(args: string[]): Promise<NativeServer> {
  const { child, ready, output } = await startReadyChild([SERVER, ...args], {
    name: 'the native server',
    ready: (text) => /weft native: (\S+)/.exec(text)?.[1],
    timeoutMs: 20_000,
  });
  const url = new URL(ready);
  const pid = child.pid!;
  let statsSeen = 0;
  return {
    url,
    pid,
    output,
    ended: () =>
      child.exitCode !== null || child.signalCode !== null
        ? `${child.exitCode ?? child.signalCode}`
        : undefined,
    processes: () => descendantsOf(pid),
    threads: () => Number(/^Threads:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]),
    probe: async (path) => {
      const response = await fetch(new URL(path, url));
      return { status: response.status, body: await response.text() };
    },
    stats: async () => {
      child.kill('SIGUSR2');
      const until = Date.now() + 5_000;
      for (;;) {
        const lines = [...output().matchAll(/weft native stats: (.+)\n/g)];
        if (lines.length > statsSeen) {
          statsSeen = lines.length;
          return JSON.parse(lines.at(-1)![1]!);
        }
        if (Date.now() > until) throw new Error('the server printed no stats');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    stop: () =>
      new Promise((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
      }),
  };
}

/** An official SDK client over Streamable HTTP that counts the answers it receives per request id. */
export interface CountingClient {
  readonly client: Client;
  /** How many answers (results or errors) arrived for each request id. */
  readonly answers: Map<string | number, number>;
  close(): Promise<void>;
}

export async function countingClient(url: URL): Promise<CountingClient> {
  const client = new Client({ name: 'weft-native-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(url);
  await client.connect(transport);
  const answers = new Map<string | number, number>();
  const deliver = transport.onmessage;
  transport.onmessage = (message) => {
    if ('id' in message && message.id !== undefined && ('result' in message || 'error' in message)) {
      answers.set(message.id, (answers.get(message.id) ?? 0) + 1);
    }
    deliver?.(message);
  };
  return { client, answers, close: () => client.close() };
}

/**
 * Waits, from `answeredAt`, for a 100 ms window in which the server and the processes that were
 * under it at the answer (`before`) used at most 2 ticks (20 ms of CPU): how long after the answer
 * that window ended. A pool process started after the answer (the warm one replacing a killed one,
 * importing the tool's module afresh) is new work weft chose, not the stopped call going on.
 */
export async function msUntilIdle(
  server: NativeServer,
  before: readonly number[],
  answeredAt: number,
  boundMs: number,
): Promise<number> {
  const pids = [server.pid, ...before];
  const ticks = () => {
    let sum = 0;
    for (const pid of pids) {
      try {
        sum += cpuTicks(pid);
      } catch {
        // It ended (killed with its call): its ticks are gone with it.
      }
    }
    return sum;
  };
  for (;;) {
    const start = ticks();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const elapsed = Date.now() - answeredAt;
    if (ticks() - start <= 2) return elapsed;
    if (elapsed > boundMs + 2_000) return elapsed;
  }
}
