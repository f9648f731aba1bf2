/**
 * first-call-deadline: how late a runaway call is answered past its deadline when it is the first
 * call of its kind, where a server has the most to do before the work can start (a schema compiler
 * to load, a thread or a process to start). Per round, a fresh weft (one pool thread) over stdio,
 * legacy HTTP and modern HTTP gets the demo's `spin` (2 s deadline, asked to spin 5 s) as its first
 * call, then a second one, which runs on the thread that replaced the terminated one; and a fresh
 * weft over stdio gets `spin_process` as the first call on its process pool. Reported: the answer's
 * lateness past 2 s from the moment the client sent the call, median and worst over the rounds.
 * Later calls are the `timeouts` scenario's. Only weft has server-side deadlines to measure.
 */
import { performance } from 'node:perf_hooks';
import type { LoadClient } from '../load/load-client.js';
import type { TransportName } from '../load/wire.js';
import type { ServerSpec } from '../servers/server-catalog.js';
import { type Scenario, withServer } from './scenario.js';

const DEADLINE_MS = 2_000;
const SPIN = { ms: 5_000 };
const ROUNDS = 5;
const QUICK_ROUNDS = 2;
const TRANSPORTS: readonly TransportName[] = ['stdio', 'http', 'modern-http'];

/** The cases of one round, each a (transport, case) pair and its lateness this round. */
type Lateness = Map<string, { transport: TransportName; kind: Case; late: number[] }>;

/** The first calls measured; each is a metric of its own (`<case>_late_ms`, `<case>_late_max_ms`). */
export type Case = 'fresh_server' | 'replaced_thread' | 'process_pool';

const roundsOf = (quick: boolean) => (quick ? QUICK_ROUNDS : ROUNDS);

/** The weft bench server with the process-isolated spin registered. */
function withSpinProcess(spec: ServerSpec): ServerSpec {
  return {
    ...spec,
    command: (transport, port) => {
      const { script, args } = spec.command(transport, port);
      return { script, args: [...args, '--spin-process'] };
    },
  };
}

export const firstCallDeadline: Scenario = {
  name: 'first-call-deadline',
  quick: true,
  steps: (budget, servers) =>
    servers.some((spec) => spec.id === 'weft') ? roundsOf(budget.quick) * (TRANSPORTS.length + 1) : 0,
  async run(context) {
    const spec = context.servers.find((server) => server.id === 'weft');
    if (!spec) return;
    const lateness: Lateness = new Map();
    const note = (transport: TransportName, kind: Case, late: number) => {
      const key = `${transport} ${kind}`;
      const entry = lateness.get(key) ?? { transport, kind, late: [] };
      entry.late.push(late);
      lateness.set(key, entry);
    };
    /** Sends `tool` and resolves how long past the deadline its answer came, saying what it was. */
    const lateOf = async (client: LoadClient, tool: string) => {
      const pending = client.call(tool, SPIN);
      const reply = await pending.reply;
      const late = performance.now() - pending.sentAt - DEADLINE_MS;
      if (reply.result?.isError !== true) {
        throw new Error(`${tool} was not answered with a timeout: ${JSON.stringify(reply).slice(0, 200)}`);
      }
      return late;
    };
    for (let round = 0; round < roundsOf(context.budget.quick); round++) {
      for (const transport of TRANSPORTS) {
        await withServer(context, spec, transport, { threads: 1 }, 1, async ({ client }) => {
          note(transport, 'fresh_server', await lateOf(client, 'spin'));
          note(transport, 'replaced_thread', await lateOf(client, 'spin'));
        });
        context.step(`first-call-deadline ${transport}`);
      }
      await withServer(context, withSpinProcess(spec), 'stdio', {}, 1, async ({ client }) => {
        note('stdio', 'process_pool', await lateOf(client, 'spin_process'));
      });
      context.step('first-call-deadline process pool');
    }
    for (const { transport, kind, late } of lateness.values()) {
      const sorted = [...late].sort((a, b) => a - b);
      const params = { deadline_ms: DEADLINE_MS, rounds: late.length };
      context.record(
        'weft',
        transport,
        `${kind}_late_ms`,
        sorted[Math.floor((sorted.length - 1) / 2)]!,
        'ms',
        params,
      );
      context.record('weft', transport, `${kind}_late_max_ms`, sorted.at(-1)!, 'ms', params);
      context.note(
        'weft',
        transport,
        `first-call-deadline ${kind}: ${late.map((ms) => ms.toFixed(1)).join(', ')} ms late`,
      );
    }
  },
};
