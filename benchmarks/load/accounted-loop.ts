/**
 * A closed loop that keeps books: like closed-loop.ts, `concurrency` callers each sending the next
 * call when the last is answered, but every call is numbered and settled in a ledger (answered,
 * failed, answered with another call's value, never answered), across windows. The fleet scenario
 * uses it because a call that crosses Redis to another process is one that could be lost or
 * answered twice, and the benchmark should say that none was.
 */
import { performance } from 'node:perf_hooks';
import { errorText } from './closed-loop.js';
import type { LatencyHistogram } from './latency-histogram.js';
import type { LoadClient } from './load-client.js';

export interface Ledger {
  sent: number;
  answered: number;
  /** Answered with a JSON-RPC error or an isError result. */
  failed: number;
  /** Answered with a value that was not this call's (the tool echoes its `n`). */
  wrong: number;
  /** Not answered within the loop's answer timeout. */
  lost: number;
  firstFailure?: string;
}

export const newLedger = (): Ledger => ({ sent: 0, answered: 0, failed: 0, wrong: 0, lost: 0 });

export interface AccountedCall {
  tool: string;
  /** The arguments of call number `n`. */
  args(n: number): Record<string, unknown>;
  /** The text call number `n` must answer with, when the tool's answer is predictable. */
  expected?(n: number): string;
}

/** Told once about each call still unanswered after `afterMs` (to look at the system while it hangs). */
export interface SlowCallWatch {
  afterMs: number;
  onSlow(tool: string, n: number): void;
}

/** Runs the loop for `durationMs`; latencies go to `latency`, the books to `ledger`; returns calls/s. */
export async function accountedLoop(
  client: LoadClient,
  call: AccountedCall,
  concurrency: number,
  durationMs: number,
  latency: LatencyHistogram | undefined,
  ledger: Ledger,
  answerTimeoutMs = 30_000,
  watch?: SlowCallWatch,
): Promise<number> {
  const start = performance.now();
  const stopAt = start + durationMs;
  let lastAnswer = start;
  let completed = 0;
  const caller = async () => {
    while (performance.now() < stopAt) {
      const n = ledger.sent++;
      const pending = client.call(call.tool, call.args(n));
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), answerTimeoutMs);
      });
      const slow = watch && setTimeout(() => watch.onSlow(call.tool, n), watch.afterMs);
      const reply = await Promise.race([pending.reply, timedOut]);
      clearTimeout(timer);
      clearTimeout(slow);
      if (reply === undefined) {
        ledger.lost++;
        client.forget(pending.id);
        continue;
      }
      lastAnswer = performance.now();
      completed++;
      ledger.answered++;
      latency?.recordMs(reply.latencyMs);
      const problem = reply.error?.message ?? (reply.result?.isError ? errorText(reply.result) : undefined);
      if (problem !== undefined) {
        ledger.failed++;
        ledger.firstFailure ??= problem;
      } else if (call.expected && reply.result && errorText(reply.result) !== call.expected(n)) {
        ledger.wrong++;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, caller));
  const seconds = (lastAnswer - start) / 1000;
  return seconds > 0 ? completed / seconds : 0;
}
