/**
 * A server's telemetry: decided once, when the server is built, from what the application
 * registered with `@opentelemetry/api` (nothing, a tracer provider, a meter provider, or both).
 *
 * With the API missing, no provider registered, or `telemetry: false`, there is none: the router
 * and the engine hold no observer and do what they did before, at one branch per request and per
 * call. Providers registered after the server was built are not seen (OpenTelemetry asks for the
 * SDK to be started before instrumented code runs).
 */
import type { Attributes } from '@opentelemetry/api';
import type { Session } from '../router/session.js';
import { isTerminal, type TaskRecord } from '../tasks/task-record.js';
import { CallTelemetry } from './call-telemetry.js';
import { apiRegistryExists, hasMeterProvider, hasTracerProvider, otelApi } from './otel-api.js';
import { type NetworkFacts, RequestTelemetry } from './request-telemetry.js';
import { ATTR, SCOPE_NAME, WEFT_ATTR } from './semconv.js';
import { type GaugeSources, WeftMetrics } from './weft-metrics.js';

export type { NetworkFacts } from './request-telemetry.js';

export class ServerTelemetry {
  readonly requests: RequestTelemetry;
  readonly calls: CallTelemetry;
  readonly #metrics: WeftMetrics | undefined;
  readonly #sessionsOpenedAt = new WeakMap<Session, number>();
  /** The last status this server counted for each live task. */
  readonly #taskStatus = new Map<string, string>();

  private constructor(requests: RequestTelemetry, calls: CallTelemetry, metrics: WeftMetrics | undefined) {
    this.requests = requests;
    this.calls = calls;
    this.#metrics = metrics;
  }

  /** The server's telemetry, or undefined when nothing would receive it. */
  static create(enabled: boolean, gauges: GaugeSources): ServerTelemetry | undefined {
    if (!enabled || !apiRegistryExists()) return undefined;
    const otel = otelApi();
    if (otel === undefined) return undefined;
    const tracing = hasTracerProvider(otel);
    const metering = hasMeterProvider(otel);
    if (!tracing && !metering) return undefined;
    const tracer = tracing ? otel.trace.getTracer(SCOPE_NAME) : undefined;
    const metrics = metering ? new WeftMetrics(otel.metrics.getMeter(SCOPE_NAME), gauges) : undefined;
    return new ServerTelemetry(
      new RequestTelemetry(otel, tracer, metrics),
      new CallTelemetry(otel, tracer, metrics),
      metrics,
    );
  }

  sessionOpened(session: Session, network: NetworkFacts | undefined): void {
    if (network !== undefined) this.requests.network(session, network);
    this.#sessionsOpenedAt.set(session, performance.now());
  }

  /** A legacy session (one that initialized) ends: `mcp.server.session.duration`. */
  sessionClosed(session: Session): void {
    const openedAt = this.#sessionsOpenedAt.get(session);
    if (this.#metrics === undefined || openedAt === undefined || !session.initialized) return;
    const attributes: Attributes = {};
    if (session.protocolVersion !== undefined) attributes[ATTR.mcpProtocolVersion] = session.protocolVersion;
    const network = this.requests.networkOf(session);
    if (network) {
      attributes[ATTR.networkTransport] = network.transport;
      if (network.protocolName) attributes[ATTR.networkProtocolName] = network.protocolName;
    }
    this.#metrics.sessionDuration.record((performance.now() - openedAt) / 1000, attributes);
  }

  /** A task's record changed: `weft.tasks` moves it from its old status to its new one. */
  taskChanged(record: TaskRecord): void {
    const tasks = this.#metrics?.tasks;
    if (tasks === undefined) return;
    const before = this.#taskStatus.get(record.taskId);
    if (before === record.status) return;
    if (before !== undefined) tasks.add(-1, { [WEFT_ATTR.taskStatus]: before });
    tasks.add(1, { [WEFT_ATTR.taskStatus]: record.status });
    if (isTerminal(record.status)) this.#taskStatus.delete(record.taskId);
    else this.#taskStatus.set(record.taskId, record.status);
  }
}
