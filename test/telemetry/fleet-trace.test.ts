/**
 * A fleet call's trace reaches the worker: the job carries the run span's context, the worker's
 * job span is its child, and the worker's own run and the handler's spans hang beneath it; a
 * fleet call past its deadline is named a timeout. The replica and the worker share this test
 * process (and so its provider), with a real redis-server.
 */
import './otel-harness.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SpanKind } from '@opentelemetry/api';
import { FleetWorker } from '../../lib/fleet/fleet-worker.js';
import { loadWorkerTools } from '../../lib/fleet/worker-tools.js';
import { McpServer } from '../../lib/index.js';
import { InProcessClient } from '../support/in-process-client.js';
import { type RedisUnderTest, redisMissing, startRedis } from '../support/redis-server.js';
import { childrenOf, parentOf, points, spanEnded } from './otel-harness.js';
import { slow, traced } from './telemetry-tools.js';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const TRACEPARENT = `00-${TRACE_ID}-b7ad6b7169203331-01`;
const TOOLS = fileURLToPath(new URL('./telemetry-tools.js', import.meta.url));

describe('fleet traces', { skip: redisMissing() }, () => {
  let redis: RedisUnderTest;
  let worker: FleetWorker;
  let server: McpServer;

  before(async () => {
    redis = await startRedis();
    worker = new FleetWorker(await loadWorkerTools(TOOLS), { redis: redis.url, queue: 'otel', threads: 1 });
    await worker.start();
    server = new McpServer({
      name: 'fleet-otel',
      version: '1.0.0',
      fleet: { redis: redis.url, queue: 'otel' },
    })
      .tool(traced)
      .tool(slow);
    // listen() opens the fleet link (engine.ready), which close() then closes.
    await server.listen({ handleSignals: false });
  });
  after(async () => {
    await server?.close();
    await worker?.close();
    await redis?.stop();
  });

  it('follows a call from the replica through the job to the handler on the worker', async () => {
    const client = new InProcessClient(server);
    const reply = await client.request(
      'tools/call',
      { name: 'traced', arguments: {}, _meta: { traceparent: TRACEPARENT } },
      'f-1',
    );
    assert.equal(reply.result?.content?.[0]?.text, TRACE_ID, 'the handler on the worker saw the trace');
    const request = await spanEnded('tools/call traced', (s) => s.attributes['jsonrpc.request.id'] === 'f-1');
    const run = await spanEnded('weft.run traced', (s) => parentOf(s) === request.spanContext().spanId);
    assert.equal(run.attributes['weft.executor'], 'fleet');
    assert.match(String(run.attributes['weft.worker']), /.+\/\d+$/);
    assert.ok(run.attributes['weft.fleet.job_id']);
    const job = await spanEnded('weft.job traced', (s) => parentOf(s) === run.spanContext().spanId);
    assert.equal(job.kind, SpanKind.CONSUMER);
    assert.equal(job.spanContext().traceId, TRACE_ID);
    assert.equal(job.attributes['weft.fleet.job_id'], run.attributes['weft.fleet.job_id']);
    assert.equal(job.attributes['weft.outcome'], 'ok');
    const workerRun = childrenOf(job).find((span) => span.name === 'weft.run traced');
    assert.ok(workerRun, 'the worker ran it on its own pool, under the job span');
    assert.equal(workerRun.attributes['weft.executor'], 'thread');
    const inner = childrenOf(workerRun).find((span) => span.name === 'inner work');
    assert.equal(inner?.spanContext().traceId, TRACE_ID);
  });

  it('names a fleet call past its deadline as a timeout, on the fleet executor', async () => {
    const client = new InProcessClient(server);
    await client.request('tools/call', { name: 'slow', arguments: { ms: 20_000 } }, 'f-timeout');
    const request = await spanEnded(
      'tools/call slow',
      (s) => s.attributes['jsonrpc.request.id'] === 'f-timeout',
    );
    assert.equal(request.attributes['error.type'], 'weft.timeout');
    const run = await spanEnded('weft.run slow', (s) => parentOf(s) === request.spanContext().spanId);
    assert.equal(run.attributes['weft.executor'], 'fleet');
    assert.equal(run.attributes['weft.outcome'], 'timeout');
    const outcomes = await points('weft.call.outcomes');
    assert.ok(
      outcomes.some(
        (p) =>
          p.attributes['gen_ai.tool.name'] === 'slow' &&
          p.attributes['weft.executor'] === 'fleet' &&
          p.attributes['weft.outcome'] === 'timeout',
      ),
      JSON.stringify(outcomes.map((p) => p.attributes)),
    );
  });
});
