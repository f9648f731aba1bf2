/**
 * Per-call latency in an HDR histogram (microsecond resolution, 3 significant digits, up to 10
 * minutes), so p99 and max stay exact however many calls a run makes.
 */
import * as hdr from 'hdr-histogram-js';

export interface LatencySummary {
  count: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  meanMs: number;
}

export class LatencyHistogram {
  readonly #histogram = hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 600_000_000,
    numberOfSignificantValueDigits: 3,
  });

  recordMs(latencyMs: number): void {
    this.#histogram.recordValue(Math.max(1, Math.round(latencyMs * 1000)));
  }

  get count(): number {
    return this.#histogram.totalCount;
  }

  summary(): LatencySummary {
    const h = this.#histogram;
    return {
      count: h.totalCount,
      p50Ms: h.getValueAtPercentile(50) / 1000,
      p99Ms: h.getValueAtPercentile(99) / 1000,
      maxMs: h.maxValue / 1000,
      meanMs: h.mean / 1000,
    };
  }
}
