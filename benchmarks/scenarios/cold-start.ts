/**
 * cold-start: what a desktop client waits for when it spawns a stdio server (at its own start, and
 * whenever the server died). Per server, 10 cold starts interleaved across servers: spawn to the
 * `initialize` answer, and spawn to the first blocking call's answer (initialize, then the pooled
 * `noop_blocking`; the SDK has no pool, so its first call is its inline `noop`, for reference).
 * Beside wall time, the CPU the process had used by each answer (from /proc), which a shared
 * machine's load disturbs far less, and, in one extra start per server with a module counter
 * preloaded, how many modules it loaded. weft is compared with the SDK for initialize and with
 * SDK + Piscina for the first blocking call, round by round.
 */
import { fileURLToPath } from 'node:url';
import { type ColdStart, coldStart } from '../load/cold-start-probe.js';
import type { ServerId } from '../servers/server-catalog.js';
import { serverNodeFlags } from '../servers/server-process.js';
import { medians, type Scenario } from './scenario.js';

const RUNS = 10;
const QUICK_RUNS = 4;
const COUNTER = fileURLToPath(new URL('../load/module-counter.js', import.meta.url));

/** The servers this scenario starts; the SDK answers its first call inline. */
const COMPARED: readonly { id: ServerId; tool: string }[] = [
  { id: 'weft', tool: 'noop_blocking' },
  { id: 'sdk', tool: 'noop' },
  { id: 'sdk-piscina', tool: 'noop_blocking' },
];

const runsOf = (quick: boolean) => (quick ? QUICK_RUNS : RUNS);

export const coldStartScenario: Scenario = {
  name: 'cold-start',
  quick: true,
  steps: (budget, servers) =>
    COMPARED.filter(({ id }) => servers.some((spec) => spec.id === id)).length * (runsOf(budget.quick) + 1),
  async run(context) {
    const contenders = COMPARED.flatMap(({ id, tool }) => {
      const spec = context.servers.find((server) => server.id === id);
      return spec ? [{ spec, tool, ...spec.command('stdio', 0) }] : [];
    });
    const flags = serverNodeFlags();
    // One start each first, unmeasured: the file system cache is then as warm for all of them.
    for (const { script, args, tool } of contenders) await coldStart(script, args, tool, flags);
    const runs: ColdStart[][] = contenders.map(() => []);
    for (let round = 0; round < runsOf(context.budget.quick); round++) {
      for (let turn = 0; turn < contenders.length; turn++) {
        const index = (round + turn) % contenders.length;
        const { spec, script, args, tool } = contenders[index]!;
        runs[index]!.push(await coldStart(script, args, tool, flags));
        context.step(`cold-start ${spec.label}`);
      }
    }
    const counted = [];
    for (const { spec, script, args, tool } of contenders) {
      counted.push((await coldStart(script, args, tool, [...flags, '--import', COUNTER])).modules);
      context.step(`cold-start ${spec.label} modules`);
    }
    const at = (id: ServerId) => contenders.findIndex((contender) => contender.spec.id === id);
    for (const [index, { spec, tool }] of contenders.entries()) {
      const own = runs[index]!;
      const id = spec.id;
      const params = { tool, runs: own.length };
      const spread = (key: keyof ColdStart) => {
        const values = own.map((run) => run[key] ?? Number.NaN).sort((a, b) => a - b);
        return `${values[0]!.toFixed(0)}-${values.at(-1)!.toFixed(0)}`;
      };
      const middle = medians(
        own.map((run) => ({
          initializeMs: run.initializeMs,
          firstCallMs: run.firstCallMs,
          initializeCpuMs: run.initializeCpuMs ?? Number.NaN,
          firstCallCpuMs: run.firstCallCpuMs ?? Number.NaN,
        })),
      );
      context.record(id, 'stdio', 'initialize_ms', middle.initializeMs, 'ms', {
        ...params,
        spread: spread('initializeMs'),
      });
      context.record(id, 'stdio', 'first_call_ms', middle.firstCallMs, 'ms', {
        ...params,
        spread: spread('firstCallMs'),
      });
      if (!Number.isNaN(middle.initializeCpuMs)) {
        context.record(id, 'stdio', 'initialize_cpu_ms', middle.initializeCpuMs, 'ms of CPU', {
          ...params,
          spread: spread('initializeCpuMs'),
        });
        context.record(id, 'stdio', 'first_call_cpu_ms', middle.firstCallCpuMs, 'ms of CPU', {
          ...params,
          spread: spread('firstCallCpuMs'),
        });
      }
      context.record(id, 'stdio', 'modules_loaded', counted[index]!, 'modules', { tool });
    }
    const weft = at('weft');
    const ratio = (
      peer: number,
      key: 'initializeMs' | 'firstCallMs' | 'initializeCpuMs' | 'firstCallCpuMs',
    ) =>
      median(
        runs[weft]!.map((run, round) => (run[key] ?? Number.NaN) / (runs[peer]![round]![key] ?? Number.NaN)),
      );
    if (weft >= 0 && at('sdk') >= 0) {
      const note = "median of the rounds' ratios";
      context.record('weft', 'stdio', 'initialize_over_sdk', ratio(at('sdk'), 'initializeMs'), 'x', { note });
      context.record('weft', 'stdio', 'initialize_cpu_over_sdk', ratio(at('sdk'), 'initializeCpuMs'), 'x', {
        note,
      });
    }
    if (weft >= 0 && at('sdk-piscina') >= 0) {
      const note = "median of the rounds' ratios";
      const peer = at('sdk-piscina');
      context.record('weft', 'stdio', 'first_call_over_sdk_piscina', ratio(peer, 'firstCallMs'), 'x', {
        note,
      });
      context.record('weft', 'stdio', 'first_call_cpu_over_sdk_piscina', ratio(peer, 'firstCallCpuMs'), 'x', {
        note,
      });
    }
  },
};

function median(values: readonly number[]): number {
  return medians(values.map((value) => ({ value }))).value;
}
