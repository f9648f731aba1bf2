/**
 * Kills a set of processes together with every process they started, so that nothing escapes.
 *
 * A tool stuck in `execSync('sleep 30')` is two processes: the worker running the handler and the
 * `sleep` it waits for. Killing only the first leaves the `sleep` running, re-parented to init. So
 * what is killed is a set closed under "started by": the roots given, every member of a process
 * group, every process carrying a call's mark in its environment (call-mark.ts: that is how a
 * detached child, or one whose parent already exited, is still found), and all their descendants.
 *
 * A process that is walking must not be able to add to the set behind the walk's back, so each
 * process found is stopped (SIGSTOP) and the walk waits until /proc says the stop took effect
 * (state T) before it reads who its children are: a fork in flight when the stop was sent either
 * completed (the child is visible) or is undone by the kernel. Then all are killed (SIGKILL), and
 * the walk runs again after the kill until no member is left alive.
 *
 * A child of this process caught in the middle of its exec shows no environment yet, so no mark:
 * the walk waits for it to show one (`settledEnvirons`), or it could run on past the call's last
 * sweep (the likely way a thread's shell and its two sleeps once outlived a deadline storm in CI).
 *
 * Everything is synchronous and bounded (a process stuck in uninterruptible sleep never shows as
 * stopped; the walk gives up waiting after STOP_WAIT_MS and kills it anyway), so it can also run in
 * a process's `exit` handler. The tree is read from /proc on Linux, and from `ps` elsewhere (no
 * marks nor stop states there: roots, groups and descendants only). It is read only when a call that
 * spawned processes ends or is abandoned, never on the hot path.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { CALL_MARK_VARIABLE } from './call-mark.js';

/** What to kill: the union of these, and every descendant of any of them. */
export interface ProcessSet {
  roots?: readonly number[];
  /** A process group id: all its members. */
  group?: number;
  /** An exact call mark, or a prefix ending in '.' for every call of one server. */
  mark?: string;
}

/** How long one round waits for the processes it stopped to show as stopped. */
const STOP_WAIT_MS = 200;
/** Rounds of stop-and-walk, and of walk-after-kill, before giving up (each normally takes one). */
const MAX_ROUNDS = 50;

interface ProcInfo {
  ppid: number;
  pgrp: number;
  /** One letter of /proc/<pid>/stat: R, S, D, T, t, Z, X... */
  state: string;
  /** When it started, in clock ticks since boot. */
  startTicks: number;
}

let ownStartTicks: number | undefined;
/** When this process started (its calls' processes can only be younger). */
function selfStartTicks(): number {
  ownStartTicks ??= readInfo(process.pid)?.startTicks ?? 0;
  return ownStartTicks;
}

const nap = new Int32Array(new SharedArrayBuffer(4));
function sleepMs(ms: number): void {
  Atomics.wait(nap, 0, 0, ms);
}

/** Stops, walks and kills the set; returns the pids that were signalled. */
export function killProcesses(set: ProcessSet): number[] {
  const found = new Set<number>();
  if (set.group !== undefined) signal(-set.group, 'SIGSTOP');
  // Each round reads the whole table and stops what it adds; the next round finds what was forked
  // before those stops took effect. Usually the second round adds nothing.
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const added = addMembers(set, found, readProcesses(set.mark !== undefined));
    for (const pid of added) signal(pid, 'SIGSTOP');
    if (added.length === 0) break;
    waitUntil(added, isStopped);
  }
  // Then all are killed, and the table is read again once they are dead, until no member is left:
  // anything a stop could not hold (a process in uninterruptible sleep, a fork the walk could not
  // see) is caught here.
  let dying = [...found];
  for (let round = 0; round < MAX_ROUNDS && dying.length > 0; round++) {
    if (set.group !== undefined) signal(-set.group, 'SIGKILL');
    for (const pid of dying) signal(pid, 'SIGKILL');
    waitUntil(dying, (state) => state === undefined || state === 'Z' || state === 'X');
    const table = readProcesses(set.mark !== undefined);
    addMembers(set, found, table);
    dying = [...found].filter((pid) => isAlive(table.get(pid)));
  }
  return [...found];
}

/** How often a call's processes are swept while the worker that ran it is dying. */
const SWEEP_INTERVAL_MS = 100;

/**
 * Kills a call's marked processes now and every SWEEP_INTERVAL_MS until the returned function is
 * called, which kills them once more. For a terminated thread: a handler that entered `execSync`
 * as its thread was terminated starts its child after the first sweep, and its thread exits only
 * once that child is gone.
 */
export function keepKillingCallProcesses(mark: string): () => void {
  killProcesses({ mark });
  const sweeper = setInterval(() => killProcesses({ mark }), SWEEP_INTERVAL_MS);
  return () => {
    clearInterval(sweeper);
    killProcesses({ mark });
  };
}

/** Kills `rootPid` and all its descendants; returns the pids that were signalled. */
export function killProcessTree(rootPid: number): number[] {
  return killProcesses({ roots: [rootPid] });
}

/** The descendants of `rootPid` alive now (not including it), for tests and diagnostics. */
export function descendantsOf(rootPid: number): number[] {
  const table = readProcesses(false);
  const children = childrenByParent(table);
  const result: number[] = [];
  const queue = [rootPid];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      if (!isAlive(table.get(child))) continue;
      result.push(child);
      queue.push(child);
    }
  }
  return result;
}

/** The live processes carrying this call mark (or, for a prefix ending in '.', any of its calls). */
export function markedProcesses(mark: string): number[] {
  const result: number[] = [];
  for (const [pid, info] of readProcesses(true))
    if (info.marked?.has(mark) && isAlive(info)) result.push(pid);
  return result;
}

/**
 * Kills every process this process started, with their descendants, and everything a call of this
 * server marked: the last act of a server that is exiting, so that nothing it spawned (a pool
 * child, a `sleep` started by `execSync` in a thread, a detached child of a call) outlives it.
 */
export function killChildProcessTrees(): void {
  const children = childrenByParent(readProcesses(false)).get(process.pid) ?? [];
  killProcesses({ roots: children, mark: `${process.pid}.` });
}

/** Adds to `found` what belongs to the set and is not in it yet; returns the pids added. */
function addMembers(set: ProcessSet, found: Set<number>, table: Map<number, ProcInfoMarked>): number[] {
  const added: number[] = [];
  const add = (pid: number) => {
    if (pid === process.pid || found.has(pid) || !isAlive(table.get(pid))) return;
    found.add(pid);
    added.push(pid);
  };
  for (const pid of set.roots ?? []) add(pid);
  for (const [pid, info] of table) {
    if (set.group !== undefined && info.pgrp === set.group) add(pid);
    if (set.mark !== undefined && info.marked?.has(set.mark)) add(pid);
  }
  // Descendants of everything found, to a fixed point.
  const children = childrenByParent(table);
  const queue = [...found];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      if (found.has(child)) continue;
      add(child);
      queue.push(child);
    }
  }
  return added;
}

/** Waits (bounded by STOP_WAIT_MS) until /proc shows every one of `pids` in a state that passes. */
function waitUntil(pids: readonly number[], passes: (state: string | undefined) => boolean): void {
  if (process.platform !== 'linux') return;
  const until = Date.now() + STOP_WAIT_MS;
  let waiting = pids;
  for (;;) {
    waiting = waiting.filter((pid) => !passes(readInfo(pid)?.state));
    if (waiting.length === 0 || Date.now() >= until) return;
    sleepMs(1);
  }
}

/** Stopped (T, or t under a tracer), or no longer running at all. */
function isStopped(state: string | undefined): boolean {
  return state === undefined || state === 'T' || state === 't' || state === 'Z' || state === 'X';
}

function isAlive(info: ProcInfo | undefined): boolean {
  return info !== undefined && info.state !== 'Z' && info.state !== 'X';
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone: nothing to stop.
  }
}

interface ProcInfoMarked extends ProcInfo {
  /** The call marks this process's environment carries: its exact mark, and its server's prefix. */
  marked?: Set<string>;
}

function childrenByParent(table: Map<number, ProcInfo>): Map<number, number[]> {
  const map = new Map<number, number[]>();
  for (const [pid, { ppid }] of table) {
    const list = map.get(ppid);
    if (list) list.push(pid);
    else map.set(ppid, [pid]);
  }
  return map;
}

function readProcesses(withMarks: boolean): Map<number, ProcInfoMarked> {
  if (process.platform !== 'linux') return psTable();
  const table = new Map<number, ProcInfoMarked>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const info = readInfo(pid);
    if (info) table.set(pid, info);
  }
  if (withMarks) {
    for (const pid of withoutEnviron) if (!table.has(pid)) withoutEnviron.delete(pid);
    const unsettled: number[] = [];
    for (const [pid, info] of table) {
      if (!mayCarryMark(info, table)) continue;
      const environ = readEnviron(pid);
      if (environ === '' && info.ppid === process.pid && isAlive(info) && !withoutEnviron.has(pid))
        unsettled.push(pid);
      else noteMark(info, environ);
    }
    for (const [pid, environ] of settledEnvirons(unsettled)) noteMark(table.get(pid)!, environ);
  }
  return table;
}

/** Children that showed no environment for a whole wait: not in an exec, so not waited for again. */
const withoutEnviron = new Set<number>();

function noteMark(info: ProcInfoMarked, environ: string | undefined): void {
  const mark = environ === undefined ? undefined : markIn(environ);
  if (mark !== undefined) info.marked = new Set([mark, mark.slice(0, mark.indexOf('.') + 1)]);
}

/**
 * The environments of children of this process that showed none, once they show one (waited for,
 * bounded by STOP_WAIT_MS). A child in the middle of its exec has told its parent it succeeded (the
 * spawn returned, the handler went on, its thread may even be gone) before the kernel has set up
 * its new program's environment: read then, it is empty, the call's mark with it, and a sweep at
 * that moment would pass it over and let it run on. A child still without one after the wait was
 * started so (an empty `env`), and is not waited for again.
 */
function settledEnvirons(pids: readonly number[]): Map<number, string> {
  const settled = new Map<number, string>();
  const until = Date.now() + STOP_WAIT_MS;
  let waiting = pids;
  while (waiting.length > 0) {
    waiting = waiting.filter((pid) => {
      const environ = isAlive(readInfo(pid)) ? readEnviron(pid) : undefined;
      if (environ === '') return true;
      if (environ !== undefined) settled.set(pid, environ);
      return false;
    });
    if (waiting.length === 0) break;
    if (Date.now() >= until) {
      for (const pid of waiting) withoutEnviron.add(pid);
      break;
    }
    sleepMs(1);
  }
  return settled;
}

/**
 * Whose environment is worth reading: a process started after this one (a call cannot have
 * started an older one) whose parent is this process (a thread's child) or older than this process
 * (an orphan adopted by init or a subreaper). A process below another young one is reached from its
 * marked ancestor by the walk instead.
 */
function mayCarryMark(info: ProcInfo, table: Map<number, ProcInfo>): boolean {
  const since = selfStartTicks();
  if (info.startTicks < since) return false;
  if (info.ppid === process.pid) return true;
  const parent = table.get(info.ppid);
  return parent === undefined || parent.startTicks < since;
}

function readInfo(pid: number): ProcInfo | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may itself contain spaces or parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return {
      state: fields[0]!,
      ppid: Number(fields[1]),
      pgrp: Number(fields[2]),
      startTicks: Number(fields[19]),
    };
  } catch {
    return undefined; // the process ended while we looked
  }
}

const MARK_PREFIX = `${CALL_MARK_VARIABLE}=`;

/** A process's environment ('' while it has none to show), or undefined when it cannot be read (another user's, or gone). */
function readEnviron(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1');
  } catch {
    return undefined;
  }
}

/** The call mark in an environment, if any. */
function markIn(environ: string): string | undefined {
  let at = 0;
  if (!environ.startsWith(MARK_PREFIX)) {
    at = environ.indexOf(`\0${MARK_PREFIX}`) + 1;
    if (at === 0) return undefined;
  }
  const end = environ.indexOf('\0', at);
  return environ.slice(at + MARK_PREFIX.length, end === -1 ? undefined : end);
}

function psTable(): Map<number, ProcInfoMarked> {
  const table = new Map<number, ProcInfoMarked>();
  try {
    const text = execFileSync('ps', ['-A', '-o', 'pid=,ppid=,pgid='], { encoding: 'utf8' });
    for (const line of text.split('\n')) {
      const [pid, ppid, pgrp] = line.trim().split(/\s+/).map(Number);
      if (Number.isInteger(pid) && Number.isInteger(ppid))
        table.set(pid!, { ppid: ppid!, pgrp: pgrp ?? 0, state: 'S', startTicks: 0 });
    }
  } catch {
    // No ps: nothing found beyond the roots.
  }
  return table;
}
