/**
 * The instruments weft records on: the MCP conventions' two durations and weft's own (queue wait,
 * run time, calls in flight, outcomes, pool threads busy, pool slots lost, fleet queue depth, tasks by status).
 * The table of names, units and attributes is in docs/telemetry.md.
 *
 * Made once per server from the application's meter provider. The gauges read the engine when the
 * application's reader collects, so they cost nothing between collections.
 */
import type { Attributes, Histogram, Meter, UpDownCounter } from '@opentelemetry/api';
import { CALL_BUCKETS, DURATION_BUCKETS, METRIC } from './semconv.js';

/** Calls in flight for one set of attributes (a tool on an executor), and those ended per outcome. */
export interface CallCounts {
  readonly attributes: Attributes;
  readonly inFlight: number;
  /** Calls ended so far, with the attributes (tool, executor, outcome) to report them under. */
  ended(): Iterable<readonly [Attributes, number]>;
}

/** What the gauges read, when a reader collects. */
export interface GaugeSources {
  /** Thread slots held by running (or dying) blocking calls. */
  threadsBusy?: () => number;
  /** Slots held by stopped calls still inside native code (engine/lost-slots.ts). */
  slotsLost?: () => number;
  /** Jobs waiting in the fleet queue; undefined when there is no fleet or it is unreachable. */
  fleetQueueDepth?: () => Promise<number | undefined>;
}

export class WeftMetrics {
  readonly operationDuration: Histogram;
  readonly sessionDuration: Histogram;
  readonly queueWait: Histogram;
  readonly runTime: Histogram;
  readonly tasks: UpDownCounter;

  readonly #meter: Meter;

  constructor(meter: Meter, sources: GaugeSources) {
    this.#meter = meter;
    const seconds = (name: string, description: string, buckets: number[]) =>
      meter.createHistogram(name, { unit: 's', description, advice: { explicitBucketBoundaries: buckets } });
    this.operationDuration = seconds(
      METRIC.operationDuration,
      'Duration of the MCP request or notification as observed on the receiver from the time it was received until the result or ack is sent.',
      DURATION_BUCKETS,
    );
    this.sessionDuration = seconds(
      METRIC.sessionDuration,
      'The duration of the MCP session as observed on the MCP server.',
      DURATION_BUCKETS,
    );
    this.queueWait = seconds(
      METRIC.queueWait,
      "How long a tool call waited for a slot (a pool thread or the tool's concurrency) before it started.",
      CALL_BUCKETS,
    );
    this.runTime = seconds(
      METRIC.runTime,
      'How long a tool call ran, from its start to its outcome, per tool, executor and outcome.',
      CALL_BUCKETS,
    );
    this.tasks = meter.createUpDownCounter(METRIC.tasks, {
      unit: '{task}',
      description: 'Tasks of this server in each status (terminal ones count up until the server stops).',
    });
    const { threadsBusy, slotsLost, fleetQueueDepth } = sources;
    if (slotsLost) {
      meter
        .createObservableGauge(METRIC.slotsLost, {
          unit: '{slot}',
          description:
            'Pool slots held by stopped calls still inside native code: a terminated thread not yet exited, or a native tool pinned to threads not yet returned.',
        })
        .addCallback((result) => result.observe(slotsLost()));
    }
    if (threadsBusy) {
      meter
        .createObservableGauge(METRIC.threadsBusy, {
          unit: '{thread}',
          description: 'Pool thread slots held by running blocking calls (a dying thread holds its slot).',
        })
        .addCallback((result) => result.observe(threadsBusy()));
    }
    if (fleetQueueDepth) {
      meter
        .createObservableGauge(METRIC.fleetQueueDepth, {
          unit: '{job}',
          description: 'Jobs waiting in the fleet queue for a worker.',
        })
        .addCallback(async (result) => {
          const depth = await fleetQueueDepth().catch(() => undefined);
          if (depth !== undefined) result.observe(depth);
        });
    }
  }

  /**
   * `weft.calls.in_flight` and `weft.call.outcomes`, read from counts the caller keeps in plain
   * numbers: observed when a reader collects rather than added to per call, since the SDK hashes
   * the attribute set of every measurement (about 1.5 us each, as much as a third of an inline call).
   */
  observeCalls(read: () => Iterable<CallCounts>): void {
    this.#meter
      .createObservableUpDownCounter(METRIC.callsInFlight, {
        unit: '{call}',
        description: 'Tool calls in the engine now, waiting or running.',
      })
      .addCallback((result) => {
        for (const count of read()) result.observe(count.inFlight, count.attributes);
      });
    this.#meter
      .createObservableCounter(METRIC.outcomes, {
        unit: '{call}',
        description: 'Tool calls ended, per tool, executor and outcome.',
      })
      .addCallback((result) => {
        for (const count of read())
          for (const [attributes, n] of count.ended()) result.observe(n, attributes);
      });
  }
}
