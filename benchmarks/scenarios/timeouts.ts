/**
 * timeouts: a runaway tool. As many `spin` calls as the machine has cores are sent at once, each
 * asking to burn 2.5 s against a 2 s deadline: weft's own (spin's timeoutMs), and for the peers the
 * client's, which sends notifications/cancelled when it passes, as the SDK client does. Measured:
 * how long past the deadline the answer comes, how long until a trivial call through the same
 * path (`fib {n: 1}`, pooled where the server has a pool) is served again, and the server's CPU
 * use after the deadline (a server that really stopped the work is idle).
 */
import { performance } from 'node:perf_hooks';
import { closedLoop, errorText } from '../load/closed-loop.js';
import type { Reply } from '../load/load-client.js';
import { cpuPercentOver } from '../load/process-probe.js';
import { type Scenario, sleep, withServer } from './scenario.js';

const SPIN_MS = 2_500;
const DEADLINE_MS = 2_000;
/** The client waits this much past the deadline before cancelling, so a server's own answer wins. */
const PATIENCE_MS = 50;
const CPU_WINDOW_DELAY_MS = 300;
const CPU_WINDOW_MS = 1_000;
const PROBE = { tool: 'fib', args: { n: 1 } };

type Answer = { at: number; reply: Reply } | undefined;

export const timeouts: Scenario = {
  name: 'timeouts',
  quick: true,
  steps: (_budget, servers) => servers.length,
  async run(context) {
    const { cores } = context;
    // Long enough for a server that runs the calls one after another to finish them all.
    const cap = cores * SPIN_MS + 500;
    const params = { spin_ms: SPIN_MS, deadline_ms: DEADLINE_MS, calls: cores, repeats: 1 };
    for (const spec of context.servers) {
      await withServer(context, spec, 'stdio', {}, 1, async ({ client, pid }) => {
        await closedLoop(client, PROBE, cores, 200);
        const answerOf = (pending: { reply: Promise<Reply> }, limitMs: number): Promise<Answer> =>
          Promise.race([
            pending.reply.then((reply) => ({ at: performance.now(), reply })),
            sleep(limitMs).then(() => undefined),
          ]);

        const spins = Array.from({ length: cores }, () => client.call('spin', { ms: SPIN_MS }));
        const deadline = spins[0]!.sentAt + DEADLINE_MS;
        const answers = spins.map((spin) => answerOf(spin, cap));
        await sleep(deadline - performance.now());
        const probe = answerOf(client.call(PROBE.tool, PROBE.args), cap);
        await sleep(PATIENCE_MS);
        const settled = await Promise.all(
          answers.map((answer) => Promise.race([answer, 'pending' as const])),
        );
        spins.forEach((spin, index) => {
          if (settled[index] === 'pending') client.cancel(spin.id, 'client timeout');
        });
        await sleep(CPU_WINDOW_DELAY_MS);
        const cpu = await cpuPercentOver(pid, CPU_WINDOW_MS);
        const [probeAnswer, ...spinAnswers] = await Promise.all([probe, ...answers]);

        const answered = spinAnswers.filter((answer) => answer !== undefined);
        if (answered.length > 0) {
          const late = Math.max(...answered.map((answer) => answer.at - deadline));
          context.record(spec.id, 'stdio', 'answer_past_deadline', Math.max(0, late), 'ms', params);
        }
        const outcomes = spinAnswers.map((answer) => {
          if (!answer) return 'no answer (the client cancelled it)';
          const { error, result } = answer.reply;
          const what = error
            ? `error ${error.code}`
            : result?.isError
              ? `isError "${errorText(result).slice(0, 60)}"`
              : 'a normal result';
          return `${what} at deadline${answer.at >= deadline ? '+' : '-'}${Math.abs(answer.at - deadline).toFixed(0)} ms`;
        });
        context.note(
          spec.id,
          'stdio',
          `timeouts: the ${spins.length} runaway calls got: ${outcomes.join('; ')}`,
        );
        if (probeAnswer) {
          context.record(spec.id, 'stdio', 'serves_again_after', probeAnswer.at - deadline, 'ms', params);
        } else context.note(spec.id, 'stdio', `timeouts: the probe call was not answered within ${cap} ms`);
        if (cpu !== undefined)
          context.record(spec.id, 'stdio', 'cpu_after_cancel', cpu, '% of a core', params);
        else context.note(spec.id, 'stdio', 'timeouts: CPU use needs /proc (Linux)');
        for (const spin of spins) client.forget(spin.id);
        context.step(`timeouts ${spec.label}`);
      });
    }
  },
};
