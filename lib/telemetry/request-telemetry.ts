/**
 * One SERVER span and one `mcp.server.operation.duration` measurement per client request, per the
 * MCP semantic conventions: named `{mcp.method.name} {target}`, parented to the context the client
 * put in `params._meta` (both eras), with the transport's ambient span linked rather than parented.
 *
 * It sees the request at the router's one door (RequestObserver) and its answer on the way out (a
 * sink that looks at the response, then passes it on). What the engine decided for a tool call
 * (timeout, cancelled, panicked, overloaded) comes from the call's watch, so `error.type` can say
 * it in weft's own words where the wire says only "isError" or -32603.
 */
import type { Attributes, Context, Span, SpanOptions, Tracer } from '@opentelemetry/api';
import type { CallTrace } from '../engine/call-observer.js';
import type { OutcomeKind } from '../engine/outcome.js';
import { META } from '../protocol/eras.js';
import type { JsonRpcMessage, JsonRpcRequest } from '../protocol/json-rpc.js';
import type { ObservedRequest, RequestObserver } from '../router/request-observer.js';
import type { MessageSink, Session } from '../router/session.js';
import type { OtelApi } from './otel-api.js';
import { ATTR, WEFT_ATTR, WEFT_ERROR } from './semconv.js';
import { contextFromMeta } from './w3c-context.js';
import type { WeftMetrics } from './weft-metrics.js';

/** How a session's peer is reached, as its transport says (`network.*`). */
export interface NetworkFacts {
  transport: 'pipe' | 'tcp';
  protocolName?: 'http' | 'websocket';
}

/** How many distinct measured attribute sets are kept for reuse (see #measuredBy). */
const MEASURED_SETS = 1024;

/** Outcomes that name themselves in `error.type`: the wire alone cannot tell them apart. */
const OUTCOME_ERRORS: Partial<Record<OutcomeKind, string>> = {
  timeout: WEFT_ERROR.timeout,
  cancelled: WEFT_ERROR.cancelled,
  panicked: WEFT_ERROR.panicked,
  overloaded: WEFT_ERROR.overloaded,
};

export class RequestTelemetry implements RequestObserver {
  readonly #otel: OtelApi;
  readonly #tracer: Tracer | undefined;
  readonly #metrics: WeftMetrics | undefined;
  readonly #network = new WeakMap<Session, NetworkFacts>();
  readonly #measured = new Map<string, Attributes>();

  constructor(otel: OtelApi, tracer: Tracer | undefined, metrics: WeftMetrics | undefined) {
    this.#otel = otel;
    this.#tracer = tracer;
    this.#metrics = metrics;
  }

  /** Records how `session`'s peer is reached, for the spans and metrics of its requests. */
  network(session: Session, facts: NetworkFacts): void {
    this.#network.set(session, facts);
  }

  networkOf(session: Session): NetworkFacts | undefined {
    return this.#network.get(session);
  }

  /**
   * What the conventions measure by (low-cardinality attributes only, no ids), one shared frozen
   * object per combination: most requests repeat a handful of them, and each new object is
   * garbage the collector pays for. Names come from clients, so the cache is bounded; past it,
   * each request gets an object of its own.
   */
  #measuredBy(
    method: string,
    target: string | undefined,
    version: unknown,
    network: NetworkFacts | undefined,
  ): Attributes {
    const key = `${method}\u0000${target ?? ''}\u0000${String(version)}\u0000${network?.transport ?? ''}\u0000${network?.protocolName ?? ''}`;
    const known = this.#measured.get(key);
    if (known !== undefined) return known;
    const attributes: Attributes = { [ATTR.mcpMethodName]: method };
    if (target !== undefined) {
      attributes[method === 'tools/call' ? ATTR.genAiToolName : ATTR.genAiPromptName] = target;
      if (method === 'tools/call') attributes[ATTR.genAiOperationName] = 'execute_tool';
    }
    if (typeof version === 'string') attributes[ATTR.mcpProtocolVersion] = version;
    if (network) {
      attributes[ATTR.networkTransport] = network.transport;
      if (network.protocolName) attributes[ATTR.networkProtocolName] = network.protocolName;
    }
    Object.freeze(attributes);
    if (this.#measured.size < MEASURED_SETS) this.#measured.set(key, attributes);
    return attributes;
  }

  start(session: Session, request: JsonRpcRequest, sink: MessageSink): ObservedRequest {
    const params = request.params ?? {};
    const { method } = request;
    const meta = params._meta as Record<string, unknown> | undefined;
    const modernVersion = typeof meta === 'object' && meta !== null ? meta[META.protocolVersion] : undefined;
    const version =
      typeof modernVersion === 'string'
        ? modernVersion
        : (session.protocolVersion ?? (method === 'initialize' ? params.protocolVersion : undefined));
    let target: string | undefined;
    if ((method === 'tools/call' || method === 'prompts/get') && typeof params.name === 'string') {
      target = params.name;
    }
    const shared = this.#measuredBy(method, target, version, this.#network.get(session));
    let span: Span | undefined;
    let context: Context | undefined;
    if (this.#tracer !== undefined) {
      const otel = this.#otel;
      const ambient = otel.context.active();
      const fromMeta = contextFromMeta(otel, otel.ROOT_CONTEXT, meta);
      // The span starts with the shared (frozen, reused) set, which is what a sampler sees; the
      // request's own attributes are built only for a span the sampler chose to record.
      const options: SpanOptions = { kind: otel.SpanKind.SERVER, attributes: shared };
      const ambientSpan = fromMeta === undefined ? undefined : otel.trace.getSpan(ambient);
      if (ambientSpan !== undefined && otel.isSpanContextValid(ambientSpan.spanContext())) {
        options.links = [{ context: ambientSpan.spanContext() }];
      }
      const parent = fromMeta ?? ambient;
      span = this.#tracer.startSpan(target === undefined ? method : `${method} ${target}`, options, parent);
      if (span.isRecording()) span.setAttributes(ownAttributes(request, session, modernVersion));
      context = otel.trace.setSpan(parent, span);
    }
    return new Observation(this.#otel, request, sink, shared, span, context, this.#metrics);
  }
}

/** The span attributes of one request beyond the shared set: ids, its peer, what it names. */
function ownAttributes(
  request: JsonRpcRequest,
  session: { id?: string | undefined; peer?: { address: string; port: number } | undefined },
  modernVersion: unknown,
): Attributes {
  const params = request.params ?? {};
  const method = request.method;
  const attributes: Attributes = { [ATTR.jsonrpcRequestId]: String(request.id) };
  if (session.id !== undefined && typeof modernVersion !== 'string')
    attributes[ATTR.mcpSessionId] = session.id;
  // The socket the transport saw at its door (span only: a per-client value has no place in metrics).
  const peer = session.peer;
  if (peer !== undefined) {
    attributes[ATTR.clientAddress] = peer.address;
    attributes[ATTR.clientPort] = peer.port;
  }
  if (method.startsWith('resources/') && typeof params.uri === 'string')
    attributes[ATTR.mcpResourceUri] = params.uri;
  return attributes;
}

/** One observed request: its span (when tracing), its measurement, its answer. */
class Observation implements ObservedRequest {
  readonly sink: MessageSink;
  readonly trace: CallTrace;
  /** What the engine decided for this request's tool call, when it ran one. */
  outcome: OutcomeKind | undefined;
  /** The span and context calls made for this request hang from (undefined: not tracing). */
  readonly span: Span | undefined;
  readonly context: Context | undefined;
  readonly #otel: OtelApi;
  readonly #request: JsonRpcRequest;
  readonly #attributes: Attributes;
  readonly #metrics: WeftMetrics | undefined;
  readonly #startedAt = performance.now();
  #errorCode: number | undefined;
  #errorMessage: string | undefined;
  #toolError = false;
  #answered = false;
  #ended = false;

  constructor(
    otel: OtelApi,
    request: JsonRpcRequest,
    sink: MessageSink,
    attributes: Attributes,
    span: Span | undefined,
    context: Context | undefined,
    metrics: WeftMetrics | undefined,
  ) {
    this.#otel = otel;
    this.#request = request;
    this.#attributes = attributes;
    this.span = span;
    this.context = context;
    this.#metrics = metrics;
    this.trace = { request: this };
    const watched: MessageSink = {
      send: (message) => {
        if (!this.#answered) this.#see(message);
        sink.send(message);
      },
    };
    if (sink.backlogBytes) watched.backlogBytes = () => sink.backlogBytes?.() ?? 0;
    this.sink = watched;
  }

  run(dispatch: () => Promise<void> | undefined): Promise<void> | undefined {
    const done = this.context === undefined ? dispatch() : this.#otel.context.with(this.context, dispatch);
    if (done === undefined) {
      this.#end();
      return undefined;
    }
    return done.then(
      () => this.#end(),
      (error: unknown) => {
        this.#end();
        throw error;
      },
    );
  }

  /** The request's own answer (not a notification, not a request the server sends the client). */
  #see(message: JsonRpcMessage | JsonRpcMessage[]): void {
    if (Array.isArray(message) || 'method' in message || !('id' in message)) return;
    if (message.id !== this.#request.id) return;
    this.#answered = true;
    if ('error' in message) {
      this.#errorCode = message.error.code;
      this.#errorMessage = message.error.message;
      return;
    }
    const result = message.result as { isError?: unknown } | undefined;
    if (result?.isError === true) this.#toolError = true;
  }

  /** The MRTR chain the router found in the sealed requestState, or minted (router/mrtr-chain.ts). */
  noteMrtrChain(chain: string): void {
    this.span?.setAttribute(WEFT_ATTR.mrtrChain, chain);
  }

  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    let errorType: string | undefined;
    if (this.#errorCode !== undefined) {
      errorType = String(this.#errorCode);
    } else if (this.#toolError) {
      errorType = WEFT_ERROR.toolError;
    } else if (!this.#answered && this.outcome === undefined) {
      errorType = WEFT_ERROR.cancelled; // nothing was sent: the client cancelled it
    }
    const own = this.outcome === undefined ? undefined : OUTCOME_ERRORS[this.outcome];
    if (own !== undefined) errorType = own;
    // The shared set is frozen (see #measuredBy): a failed request measures by a copy that says how.
    let attributes = this.#attributes;
    if (errorType !== undefined) {
      attributes = { ...attributes, [ATTR.errorType]: errorType };
      if (this.#errorCode !== undefined) attributes[ATTR.rpcResponseStatusCode] = String(this.#errorCode);
    }
    const span = this.span;
    if (span !== undefined) {
      // The span has the shared attributes from its start: only what the answer told is new.
      if (this.#errorCode !== undefined)
        span.setAttribute(ATTR.rpcResponseStatusCode, String(this.#errorCode));
      if (errorType !== undefined) {
        span.setAttribute(ATTR.errorType, errorType);
        span.setStatus({
          code: this.#otel.SpanStatusCode.ERROR,
          message:
            this.#errorMessage ?? own ?? (this.#toolError ? 'The tool returned an error result' : errorType),
        });
      }
      span.end();
    }
    this.#metrics?.operationDuration.record((performance.now() - this.#startedAt) / 1000, attributes);
  }
}

/** The observation a call's trace names (the engine passes it through untouched). */
export function observationOf(trace: CallTrace | undefined):
  | {
      outcome: OutcomeKind | undefined;
      readonly span: Span | undefined;
      readonly context: Context | undefined;
    }
  | undefined {
  const request = trace?.request;
  return request instanceof Observation ? request : undefined;
}
