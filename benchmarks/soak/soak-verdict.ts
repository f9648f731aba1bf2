/**
 * The soak's verdict from its samples: every request accounted for; RSS and live heap flat after
 * warm-up (the least-squares line over the last three quarters of the load grows by <= 5%); threads
 * and descriptors back to their baseline once the load stops; idle CPU about zero after it.
 */
import type { RequestLedger } from './request-ledger.js';

export interface Sample {
  /** Seconds since the soak started. */
  t: number;
  phase: 'baseline' | 'load' | 'after';
  rssMiB: number;
  heapMiB: number;
  /** Memory outside the V8 heap that JS objects hold (Buffers...): printed, not judged. */
  externalMiB: number;
  /** glibc's thread arenas, resident, and how many heaps they have: printed, not judged. */
  arenaMiB: number;
  arenas: number;
  threads: number;
  fds: number;
  loopP99Ms: number;
  loopMaxMs: number;
}

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

export const MAX_GROWTH = 0.05;
/** The checks a short run may report as advisory (`--memory-checks advisory`). */
export const MEMORY_CHECKS: ReadonlySet<string> = new Set(['RSS flat', 'live heap flat']);
/** Percent of one core that still counts as idle (the sampler's own GC every few seconds). */
export const IDLE_CPU_PERCENT = 2;

/** Growth of the fitted line from the first to the last point, relative to its start. */
export function fittedGrowth(points: { t: number; v: number }[]): number {
  if (points.length < 3) return 0;
  const n = points.length;
  const mt = points.reduce((sum, p) => sum + p.t, 0) / n;
  const mv = points.reduce((sum, p) => sum + p.v, 0) / n;
  const sxx = points.reduce((sum, p) => sum + (p.t - mt) ** 2, 0);
  const slope = sxx === 0 ? 0 : points.reduce((sum, p) => sum + (p.t - mt) * (p.v - mv), 0) / sxx;
  const start = mv + slope * (points[0]!.t - mt);
  return (slope * (points.at(-1)!.t - points[0]!.t)) / start;
}

export function verdict(
  samples: readonly Sample[],
  ledger: RequestLedger,
  settled: { threads: number; fds: number },
  idleCpuPercent: number | undefined,
  serverAlive: boolean,
): Check[] {
  const baseline = samples.filter((s) => s.phase === 'baseline').at(-1);
  const load = samples.filter((s) => s.phase === 'load');
  const from = load.length > 0 ? load[0]!.t + (load.at(-1)!.t - load[0]!.t) / 4 : 0;
  const late = load.filter((s) => s.t >= from);
  const rss = fittedGrowth(late.map((s) => ({ t: s.t, v: s.rssMiB })));
  const heap = fittedGrowth(late.map((s) => ({ t: s.t, v: s.heapMiB })));
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const rssRange =
    late.length > 0 ? `${late[0]!.rssMiB.toFixed(0)} -> ${late.at(-1)!.rssMiB.toFixed(0)} MiB` : '';
  const heapRange =
    late.length > 0 ? `${late[0]!.heapMiB.toFixed(1)} -> ${late.at(-1)!.heapMiB.toFixed(1)} MiB` : '';
  return [
    {
      name: 'server alive',
      ok: serverAlive,
      detail: serverAlive ? 'ran to the end' : 'the server process died',
    },
    {
      name: 'requests accounted for',
      ok: ledger.unanswered === 0 && ledger.sent === ledger.answered + ledger.cancelled,
      detail: `${ledger.sent} sent: ${ledger.answered} answered, ${ledger.cancelled} cancelled by their client, ${ledger.unanswered} unanswered${ledger.failures.length > 0 ? ` (${ledger.failures.slice(0, 3).join('; ')})` : ''}`,
    },
    {
      name: 'RSS flat',
      ok: late.length >= 3 && rss <= MAX_GROWTH,
      detail: `fitted growth ${pct(rss)} over the last 3/4 (${rssRange})`,
    },
    {
      name: 'live heap flat',
      ok: late.length >= 3 && heap <= MAX_GROWTH,
      detail: `fitted growth ${pct(heap)} over the last 3/4 (${heapRange})`,
    },
    {
      name: 'threads back to baseline',
      ok: baseline !== undefined && settled.threads <= baseline.threads,
      detail: `${baseline?.threads} before, ${settled.threads} after`,
    },
    {
      name: 'descriptors back to baseline',
      ok: baseline !== undefined && settled.fds <= baseline.fds,
      detail: `${baseline?.fds} before, ${settled.fds} after`,
    },
    {
      name: 'idle CPU ~0 after the load',
      ok: idleCpuPercent !== undefined && idleCpuPercent <= IDLE_CPU_PERCENT,
      detail: `${idleCpuPercent?.toFixed(2)}% of a core (limit ${IDLE_CPU_PERCENT}%)`,
    },
  ];
}
