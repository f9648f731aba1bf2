/**
 * The server's own time per HTTP request, for the bench server (`--request-times`): from the moment
 * Node has parsed a request's headers to the moment its response is finished, for the requests whose
 * `Mcp-Name` header names one of the watched tools. Measured through Node's own `http.server.*`
 * diagnostics channels, so nothing in weft is touched to take it. Scenarios read (and reset) it with
 * the `request_times` tool, and set the client's latency beside it: what the client sees above the
 * server's own time is the wire, the client and the scheduler.
 */
import { subscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import { LatencyHistogram } from '../load/latency-histogram.js';

interface HttpServerMessage {
  request: IncomingMessage;
}

export function watchRequestTimes(tools: readonly string[]) {
  const started = new WeakMap<IncomingMessage, number>();
  let times = new LatencyHistogram();
  subscribe('http.server.request.start', (message) => {
    const { request } = message as HttpServerMessage;
    const name = request.headers['mcp-name'];
    if (typeof name === 'string' && tools.includes(name)) started.set(request, performance.now());
  });
  subscribe('http.server.response.finish', (message) => {
    const { request } = message as HttpServerMessage;
    const at = started.get(request);
    if (at !== undefined) times.recordMs(performance.now() - at);
  });
  return {
    name: 'request_times',
    description: `The server's own time per HTTP request for ${tools.join(', ')} since the last ask (then reset).`,
    inputSchema: { type: 'object', additionalProperties: false },
    handler: (): string => {
      const summary = times.summary();
      times = new LatencyHistogram();
      return JSON.stringify(summary);
    },
  } as const;
}
