/**
 * The attribute and metric names weft reports under: the OpenTelemetry MCP semantic conventions
 * (`docs/gen-ai/mcp.md`, status Development) and weft's own, under `weft.`.
 *
 * Copied here rather than imported from `@opentelemetry/semantic-conventions/incubating`, as the
 * conventions ask of instrumentation libraries: incubating names may change between releases, and
 * weft must not gain a run-time dependency for a table of strings.
 */

/** Span and metric attributes of the MCP conventions. */
export const ATTR = {
  mcpMethodName: 'mcp.method.name',
  mcpProtocolVersion: 'mcp.protocol.version',
  mcpSessionId: 'mcp.session.id',
  mcpResourceUri: 'mcp.resource.uri',
  jsonrpcRequestId: 'jsonrpc.request.id',
  rpcResponseStatusCode: 'rpc.response.status_code',
  errorType: 'error.type',
  genAiToolName: 'gen_ai.tool.name',
  genAiPromptName: 'gen_ai.prompt.name',
  genAiOperationName: 'gen_ai.operation.name',
  networkTransport: 'network.transport',
  networkProtocolName: 'network.protocol.name',
  clientAddress: 'client.address',
  clientPort: 'client.port',
} as const;

/** weft's own attributes. */
export const WEFT_ATTR = {
  /** Where a call ran: `inline`, `thread`, `process` or `fleet`. */
  executor: 'weft.executor',
  /** How a call ended: one of the engine's outcome kinds (ok, tool-error, timeout...). */
  outcome: 'weft.outcome',
  /** The thread id, pid or fleet worker (`host/pid`) that ran a blocking call. */
  worker: 'weft.worker',
  /** The rounds of one multi-round request share this value (a digest of its method, target, arguments). */
  mrtrChain: 'weft.mrtr.chain',
  /** The task a span belongs to. */
  taskId: 'weft.task.id',
  taskStatus: 'weft.task.status',
  /** The fleet job carrying a call. */
  fleetJobId: 'weft.fleet.job_id',
} as const;

/** `error.type` values of weft's own, for outcomes that have no JSON-RPC code of their own. */
export const WEFT_ERROR = {
  toolError: 'tool_error',
  timeout: 'weft.timeout',
  cancelled: 'weft.cancelled',
  panicked: 'weft.panicked',
  overloaded: 'weft.overloaded',
} as const;

/** The histogram buckets the MCP conventions give for their durations, in seconds. */
export const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/** Finer buckets for weft's queue waits and runs, which are often well below 10 ms. */
export const CALL_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300,
];

export const METRIC = {
  operationDuration: 'mcp.server.operation.duration',
  sessionDuration: 'mcp.server.session.duration',
  queueWait: 'weft.call.queue.duration',
  runTime: 'weft.call.run.duration',
  callsInFlight: 'weft.calls.in_flight',
  outcomes: 'weft.call.outcomes',
  threadsBusy: 'weft.pool.threads.busy',
  slotsLost: 'weft.pool.slots.lost',
  fleetQueueDepth: 'weft.fleet.queue.depth',
  tasks: 'weft.tasks',
} as const;

/** The instrumentation scope: what a backend shows as the library that made the spans. */
export const SCOPE_NAME = 'weft';
