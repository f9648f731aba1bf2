/**
 * CPU time a process has used, read from /proc, for the suites that tell a thread or process really
 * stopped working (a runaway killed, a cancelled task on another replica) from one that only stopped
 * answering: a busy process gains ticks, an idle one next to none.
 */
import { readFileSync } from 'node:fs';

/** CPU time (user + system, in clock ticks of 10 ms) a process has used so far. */
export function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** Ticks each process used over `ms`. */
export async function cpuOver(pids: number[], ms: number): Promise<number[]> {
  const start = pids.map(cpuTicks);
  await new Promise((resolve) => setTimeout(resolve, ms));
  return pids.map((pid, index) => cpuTicks(pid) - start[index]!);
}
