/**
 * What the operating system knows about a server process: CPU time used (all threads), resident
 * memory and thread count, read from /proc/<pid>. Linux only; elsewhere every read is undefined and
 * the scenarios that need it say so instead of inventing a number.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;

export function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: fields start after the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** User + system CPU seconds the process has used so far, all its threads together. */
export function cpuSeconds(pid: number): number | undefined {
  const fields = statFields(pid);
  if (!fields) return undefined;
  // After the name: state is field 3, so utime (14) and stime (15) are at indexes 11 and 12.
  return (Number(fields[11]) + Number(fields[12])) / clockTicks();
}

export function threadCount(pid: number): number | undefined {
  const fields = statFields(pid);
  return fields ? Number(fields[17]) : undefined;
}

/** Resident set size in MiB. */
export function rssMiB(pid: number): number | undefined {
  return statusMiB(pid, 'VmRSS');
}

/** The most resident memory the process has ever had (VmHWM, its high-water mark), in MiB. */
export function peakRssMiB(pid: number): number | undefined {
  return statusMiB(pid, 'VmHWM');
}

/**
 * Sets a process's peak resident size back to its current one (Linux: `5` into clear_refs), so the
 * next peakRssMiB reads the peak of what ran since. False where that cannot be done.
 */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

function statusMiB(pid: number, field: 'VmRSS' | 'VmHWM'): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(status);
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** CPU use of a process over a window, in percent of one core (200 = two cores busy). */
export async function cpuPercentOver(pid: number, windowMs: number): Promise<number | undefined> {
  const before = cpuSeconds(pid);
  const start = performance.now();
  await new Promise((resolve) => setTimeout(resolve, windowMs));
  const after = cpuSeconds(pid);
  if (before === undefined || after === undefined) return undefined;
  return ((after - before) / ((performance.now() - start) / 1000)) * 100;
}

/** glibc's heaps for thread arenas: 64 MiB each, aligned to 64 MiB (HEAP_MAX_SIZE on 64-bit). */
const ARENA_HEAP = 64n * 1024n * 1024n;

/**
 * glibc's thread arenas in the process (not the main arena, which lives in the brk heap): how
 * many heaps they have (`arenas`; an arena may grow a second heap), and how much of them is resident. Read from /proc/<pid>/smaps: an anonymous
 * read-write mapping that starts on a 64 MiB boundary. Undefined where there is no smaps.
 */
export function mallocArenas(pid: number | 'self'): { arenas: number; arenaMiB: number } | undefined {
  let smaps: string;
  try {
    smaps = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  } catch {
    return undefined;
  }
  let heaps = 0;
  let residentKiB = 0;
  let inHeap = false;
  for (const line of smaps.split('\n')) {
    const range = /^([0-9a-f]+)-[0-9a-f]+ (\S+) \S+ \S+ \S+\s*(\S*)/.exec(line);
    if (range) {
      inHeap = range[3] === '' && range[2]!.startsWith('rw') && BigInt(`0x${range[1]}`) % ARENA_HEAP === 0n;
      if (inHeap) heaps++;
    } else if (inHeap && line.startsWith('Rss:')) {
      residentKiB += Number(line.split(/\s+/)[1]);
    }
  }
  return { arenas: heaps, arenaMiB: residentKiB / 1024 };
}
