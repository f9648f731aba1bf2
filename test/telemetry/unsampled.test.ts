/**
 * A request whose trace the sampler dropped (its parent says not sampled, and the SDK's default
 * sampler follows the parent) costs no spans: no request span is recorded, no queue or run span is
 * made for its call, and a pool thread's handler, though it still sees the request's trace id,
 * sends no spans back. A sampled request beside it keeps every span and its request attributes.
 */
import './otel-harness.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { McpServer } from '../../lib/index.js';
import { InProcessClient } from '../support/in-process-client.js';
import { spanEnded, spans } from './otel-harness.js';
import { traced } from './telemetry-tools.js';

const UNSAMPLED_TRACE = '5c0ffee0000000000000000000000001';
const SAMPLED_TRACE = '5c0ffee0000000000000000000000002';
const PARENT = '00f067aa0ba902b7';

describe('a request the sampler dropped', () => {
  let server: McpServer;
  let client: InProcessClient;

  before(async () => {
    server = new McpServer({ name: 'unsampled', version: '1.0.0', pool: { maxThreads: 1 } })
      .tool({ name: 'echo', inputSchema: { type: 'object' }, handler: (args) => args })
      .tool(traced);
    client = new InProcessClient(server);
    await client.initialize('2025-11-25');
  });
  after(() => server.close());

  it('makes no spans, while the handler still sees its trace id', async () => {
    const unsampled = { traceparent: `00-${UNSAMPLED_TRACE}-${PARENT}-00` };
    const reply = await client.request(
      'tools/call',
      { name: 'traced', arguments: {}, _meta: unsampled },
      'u-1',
    );
    assert.equal(reply.result?.content?.[0]?.text, UNSAMPLED_TRACE, 'the handler ran in the request trace');
    await client.request('tools/call', { name: 'echo', arguments: {}, _meta: unsampled }, 'u-2');
    // A sampled call after them: once its spans have ended, the dropped ones would have too.
    const sampled = { traceparent: `00-${SAMPLED_TRACE}-${PARENT}-01` };
    await client.request('tools/call', { name: 'traced', arguments: {}, _meta: sampled }, 's-1');
    const request = await spanEnded('tools/call traced', (s) => s.spanContext().traceId === SAMPLED_TRACE);
    assert.equal(request.attributes['jsonrpc.request.id'], 's-1', 'a recorded span keeps its own attributes');
    await spanEnded('weft.run traced', (s) => s.spanContext().traceId === SAMPLED_TRACE);
    await spanEnded('inner work', (s) => s.spanContext().traceId === SAMPLED_TRACE);
    const dropped = spans
      .getFinishedSpans()
      .filter((span) => span.spanContext().traceId === UNSAMPLED_TRACE)
      .map((span) => span.name);
    assert.deepEqual(dropped, []);
  });
});
