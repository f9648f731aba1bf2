/**
 * CPU time of a process split by thread, from /proc/<pid>/task/<tid>: its main thread (the
 * thread whose id is the pid, where a Node server's event loop runs) apart from all its other
 * threads (pool threads, and V8's and libuv's helpers: Node 20 names them all "node", so they
 * cannot be told apart by name). Per-call CPU read this way is what a shared machine disturbs
 * least: another process's load slows a window down but does not add to this process's CPU time.
 * Each thread's time is read from its `schedstat` (the scheduler's count of nanoseconds run) where
 * the kernel keeps one, else from `stat` (user plus system time in clock ticks, 10 ms each). Ticks
 * are coarse for a window of 700 ms: each of a server's ten or so threads (a pool, V8's and libuv's
 * helpers) rounds on its own at every read, up to a tenth of what a window at 100 KiB a call used.
 * Linux only; elsewhere undefined, and the scenario says so.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { clockTicks } from './process-probe.js';

export interface ThreadCpu {
  /** CPU seconds of the main thread. */
  main: number;
  /** CPU seconds of every other thread alive at the read, by thread id. */
  others: Map<string, number>;
}

function threadSeconds(pid: number, tid: string): number | undefined {
  try {
    const schedstat = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8');
    const runNs = Number(schedstat.slice(0, schedstat.indexOf(' ')));
    if (Number.isFinite(runNs)) return runNs / 1e9;
  } catch {
    // no schedstat (a kernel without scheduler statistics), or the thread ended: try stat
  }
  try {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clockTicks();
  } catch {
    return undefined; // the thread ended between the listing and the read
  }
}

export function readThreadCpu(pid: number): ThreadCpu | undefined {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
  const main = threadSeconds(pid, String(pid));
  if (main === undefined) return undefined;
  const others = new Map<string, number>();
  for (const tid of tids) {
    if (tid === String(pid)) continue;
    const seconds = threadSeconds(pid, tid);
    if (seconds !== undefined) others.set(tid, seconds);
  }
  return { main, others };
}

/**
 * CPU used between two reads, in seconds: the main thread, and the other threads together (a
 * thread born in between counts from zero; one that ended in between is lost, which the pools
 * measured here, whose threads stay up, never do).
 */
export function cpuBetween(before: ThreadCpu, after: ThreadCpu): { main: number; others: number } {
  let others = 0;
  for (const [tid, seconds] of after.others) others += seconds - (before.others.get(tid) ?? 0);
  return { main: after.main - before.main, others };
}
