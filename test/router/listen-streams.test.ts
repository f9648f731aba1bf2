/**
 * `subscriptions/listen` through the router, in process: the acknowledgement first with the
 * honoured subset, the subscriptionId on every notification, only the kinds asked for, teardown by
 * notifications/cancelled or a closed connection (no response), a graceful end at shutdown, and a
 * stream whose reader does not read holding one pending notification per kind, not a queue.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { JsonRpcMessage } from '../../lib/protocol/json-rpc.js';
import { MAX_BACKLOG_BYTES } from '../../lib/router/listen-streams.js';
import { InProcessClient } from '../support/in-process-client.js';
import { buildModernServer, envelope } from './modern-fixtures.js';

const SUBSCRIPTION = 'io.modelcontextprotocol/subscriptionId';
type Notification = { method: string; params: Record<string, unknown> & { _meta?: Record<string, unknown> } };

const server = buildModernServer();
after(() => server.close());

const tick = (ms = 30) => new Promise((resolve) => setTimeout(resolve, ms));
const notificationsOf = (client: InProcessClient, id: unknown): Notification[] =>
  (client.received as unknown as Notification[]).filter(
    (message) => 'method' in message && message.params?._meta?.[SUBSCRIPTION] === id,
  );

function listen(client: InProcessClient, id: string | number, notifications: Record<string, unknown>) {
  return client.request('subscriptions/listen', { _meta: envelope(), notifications }, id);
}

function call(client: InProcessClient, name: string, args: Record<string, unknown> = {}) {
  return client.request('tools/call', { name, arguments: args, _meta: envelope() });
}

describe('subscriptions/listen', () => {
  it('acknowledges first, with the honoured subset and the listen id as subscriptionId (type kept)', async () => {
    const client = new InProcessClient(server);
    listen(client, 7, {
      toolsListChanged: true,
      resourcesListChanged: false,
      resourceSubscriptions: ['app://config', 'app://users/ada', 'app://nowhere'],
      taskIds: ['not-a-weft-feature'],
    });
    const first = client.received[0] as unknown as Notification;
    assert.equal(first.method, 'notifications/subscriptions/acknowledged');
    assert.deepEqual(first.params, {
      _meta: { [SUBSCRIPTION]: 7 },
      notifications: { toolsListChanged: true, resourceSubscriptions: ['app://config', 'app://users/ada'] },
    });
    listen(client, 'seven', { promptsListChanged: true });
    assert.equal(notificationsOf(client, 'seven')[0]?.method, 'notifications/subscriptions/acknowledged');
    client.close();
  });

  it('delivers only the kinds each stream asked for, each tagged with its subscriptionId', async () => {
    const client = new InProcessClient(server);
    listen(client, 'tools', { toolsListChanged: true });
    listen(client, 'prompts', { promptsListChanged: true });
    listen(client, 'config', { resourceSubscriptions: ['app://config'] });
    await call(client, 'touch_tools');
    await call(client, 'touch_prompts');
    await call(client, 'touch_resource', { uri: 'app://config' });
    await call(client, 'touch_resource', { uri: 'app://other' });
    await tick();
    const methods = (id: string) => notificationsOf(client, id).map((message) => message.method);
    assert.deepEqual(methods('tools'), [
      'notifications/subscriptions/acknowledged',
      'notifications/tools/list_changed',
    ]);
    assert.deepEqual(methods('prompts'), [
      'notifications/subscriptions/acknowledged',
      'notifications/prompts/list_changed',
    ]);
    assert.deepEqual(methods('config'), [
      'notifications/subscriptions/acknowledged',
      'notifications/resources/updated',
    ]);
    assert.equal(notificationsOf(client, 'config')[1]!.params.uri, 'app://config');
    // Nothing untagged reached this modern-only client: no legacy broadcast, no stray updates.
    const untagged = (client.received as unknown as Notification[]).filter(
      (message) => 'method' in message && message.params?._meta?.[SUBSCRIPTION] === undefined,
    );
    assert.deepEqual(untagged, []);
    client.close();
  });

  it('ends on notifications/cancelled without a response, and delivers nothing after', async () => {
    const client = new InProcessClient(server);
    let answered = false;
    listen(client, 'L', { toolsListChanged: true }).then(() => {
      answered = true;
    });
    const inFlight = server.stats.inFlight;
    client.notify('notifications/cancelled', { requestId: 'L', reason: 'done' });
    assert.equal(server.stats.inFlight, inFlight - 1);
    await call(client, 'touch_tools');
    await tick();
    assert.equal(answered, false);
    assert.deepEqual(
      notificationsOf(client, 'L').map((message) => message.method),
      ['notifications/subscriptions/acknowledged'],
    );
    // The id is free again.
    listen(client, 'L', { toolsListChanged: true });
    assert.equal(notificationsOf(client, 'L').length, 2);
    client.close();
  });

  it('refuses a second listen under an id still listening, and a malformed filter', async () => {
    const client = new InProcessClient(server);
    listen(client, 'dup', { toolsListChanged: true });
    const duplicate = await listen(client, 'dup', { toolsListChanged: true });
    assert.equal(duplicate.error?.code, -32600);
    const noFilter = await client.request('subscriptions/listen', { _meta: envelope() }, 'bare');
    assert.equal(noFilter.error?.code, -32602);
    assert.match(noFilter.error!.message, /params\.notifications/);
    const badFlag = await listen(client, 'flag', { toolsListChanged: 'yes' });
    assert.equal(badFlag.error?.code, -32602);
    const badUris = await listen(client, 'uris', { resourceSubscriptions: 'app://config' });
    assert.equal(badUris.error?.code, -32602);
    client.close();
  });

  it('ends when the connection closes: later changes reach no one and nothing stays in flight', async () => {
    const client = new InProcessClient(server);
    const before = server.stats.inFlight;
    listen(client, 'gone', { toolsListChanged: true });
    assert.equal(server.stats.inFlight, before + 1);
    client.close();
    assert.equal(server.stats.inFlight, before);
    const count = client.received.length;
    server.tool({ name: 'after_close', inputSchema: { type: 'object' }, handler: () => 'x' });
    server.removeTool('after_close');
    await tick();
    assert.equal(client.received.length, count);
  });

  it('opens nothing on a connection that is already closed', () => {
    const client = new InProcessClient(server);
    client.close();
    const before = server.stats.inFlight;
    listen(client, 'late', { toolsListChanged: true });
    assert.equal(server.stats.inFlight, before);
    assert.deepEqual(client.received, []);
  });

  it('coalesces what a slow reader has not taken, then delivers one notification per kind', async () => {
    let backlog = MAX_BACKLOG_BYTES * 2;
    const received: JsonRpcMessage[] = [];
    const connection = server.connect({
      send: (message) => received.push(...[message].flat()),
      backlogBytes: () => backlog,
    });
    connection.receive({
      jsonrpc: '2.0',
      id: 'slow',
      method: 'subscriptions/listen',
      params: {
        _meta: envelope(),
        notifications: { toolsListChanged: true, resourceSubscriptions: ['app://config'] },
      },
    });
    for (let round = 0; round < 200; round++) {
      server.tool({ name: `churn_${round}`, inputSchema: { type: 'object' }, handler: () => 'x' });
      server.removeTool(`churn_${round}`);
      server.resourceUpdated('app://config');
      if (round % 50 === 0) await tick(5);
    }
    await tick(120);
    assert.deepEqual(
      received.map((message) => (message as { method?: string }).method),
      ['notifications/subscriptions/acknowledged'],
      'nothing more is handed to a transport that reports a large backlog',
    );
    backlog = 0;
    await tick(150);
    const methods = received
      .map((message) => (message as { method?: string }).method)
      .slice(1)
      .sort();
    assert.deepEqual(methods, ['notifications/resources/updated', 'notifications/tools/list_changed']);
    connection.close();
  });

  it('is refused (-32011) once shutdown has ended the streams, so the drain ends with the calls', async () => {
    const own = buildModernServer({ shutdownGraceMs: 5_000 });
    own.tool({
      name: 'wait_a_moment',
      inputSchema: { type: 'object' },
      handler: () => new Promise((resolve) => setTimeout(() => resolve('done'), 300)),
    });
    const client = new InProcessClient(own);
    const running = call(client, 'wait_a_moment');
    await tick(20);
    const started = Date.now();
    const closing = own.close();
    const late = await Promise.race([listen(client, 'late', { toolsListChanged: true }), tick(1_000)]);
    assert.equal((await running).result?.content?.[0]?.text, 'done');
    await closing;
    assert.equal((late as { error?: { code: number } } | undefined)?.error?.code, -32011);
    const took = Date.now() - started;
    assert.ok(took < 3_000, `the drain took ${took} ms: a listen opened while stopping held it to the grace`);
  });

  it('is answered complete, with its subscriptionId, when the server shuts down', async () => {
    const own = buildModernServer();
    const client = new InProcessClient(own);
    const answer = listen(client, 42, { toolsListChanged: true });
    const started = Date.now();
    await own.close();
    const reply = await answer;
    assert.ok(Date.now() - started < 3_000, 'shutdown does not wait out its grace for a listen stream');
    assert.equal(reply.id, 42);
    assert.deepEqual(reply.result, {
      resultType: 'complete',
      _meta: {
        [SUBSCRIPTION]: 42,
        'io.modelcontextprotocol/serverInfo': { name: 'weft-modern', version: '1.2.3' },
      },
    });
  });
});
