/**
 * Kills a process together with every process it started.
 *
 * A tool stuck in `execSync('sleep 30')` is two processes: the pool child running the handler and
 * the `sleep` it waits for. Killing only the child leaves the `sleep` running, re-parented to init,
 * for its full 30 seconds. So the whole tree is taken down: each process found is stopped (SIGSTOP)
 * first so that it cannot start new ones while the tree is walked, then all are killed (SIGKILL).
 *
 * The tree is read from /proc on Linux and from `ps` elsewhere; both are read only when a call is
 * abandoned, never on the hot path.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Stops and kills `rootPid` and all its descendants; returns the pids that were signalled. */
export function killProcessTree(rootPid: number): number[] {
  const found = new Set<number>();
  const stop = (pid: number) => {
    found.add(pid);
    signal(pid, 'SIGSTOP');
  };
  stop(rootPid);
  // Stopped processes cannot fork, so a few rounds reach a fixed point.
  for (let round = 0; round < 5; round++) {
    const children = childrenByParent();
    let added = false;
    for (const pid of [...found]) {
      for (const child of children.get(pid) ?? []) {
        if (!found.has(child)) {
          stop(child);
          added = true;
        }
      }
    }
    if (!added) break;
  }
  for (const pid of found) signal(pid, 'SIGKILL');
  return [...found];
}

/** The descendants of `rootPid` alive now (not including it), for tests and diagnostics. */
export function descendantsOf(rootPid: number): number[] {
  const children = childrenByParent();
  const result: number[] = [];
  const queue = [rootPid];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      result.push(child);
      queue.push(child);
    }
  }
  return result;
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone: nothing to stop.
  }
}

function childrenByParent(): Map<number, number[]> {
  const pairs = process.platform === 'linux' ? procPairs() : psPairs();
  const map = new Map<number, number[]>();
  for (const [pid, ppid] of pairs) {
    const list = map.get(ppid);
    if (list) list.push(pid);
    else map.set(ppid, [pid]);
  }
  return map;
}

function procPairs(): Array<[number, number]> {
  const pairs: Array<[number, number]> = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name is in parentheses and may itself contain spaces or parentheses.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      pairs.push([pid, Number(fields[1])]);
    } catch {
      // The process ended while we looked.
    }
  }
  return pairs;
}

function psPairs(): Array<[number, number]> {
  try {
    const text = execFileSync('ps', ['-A', '-o', 'pid=,ppid='], { encoding: 'utf8' });
    return text
      .split('\n')
      .map((line) => line.trim().split(/\s+/).map(Number))
      .filter((pair): pair is [number, number] => pair.length === 2 && pair.every(Number.isInteger));
  } catch {
    return [];
  }
}

/**
 * Kills every process this process started, with their own descendants: the last act of a server
 * that is exiting, so that nothing it spawned (a pool child, a `sleep` started by `execSync` in a
 * thread) outlives it.
 */
export function killChildProcessTrees(): void {
  for (const child of childrenByParent().get(process.pid) ?? []) killProcessTree(child);
}
