/**
 * The rest of "every method in both eras" (spans.test.ts has the common ones): completions,
 * subscriptions, the tasks methods, the Skills extension's methods and the modern listen stream
 * each get their SERVER span, with what the request says of its target; and
 * the rounds of one multi-round (MRTR) request are spans of their own, tied by `weft.mrtr.chain`.
 */
import './otel-harness.js';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SpanKind } from '@opentelemetry/api';
import { McpServer } from '../../lib/index.js';
import { envelope } from '../router/modern-fixtures.js';
import { InProcessClient } from '../support/in-process-client.js';
import { spanEnded } from './otel-harness.js';

const attr = (span: { attributes: Record<string, unknown> }, key: string) => span.attributes[key];

function buildServer(): McpServer {
  return new McpServer({ name: 'telemetry-methods', version: '1.0.0' })
    .tool({
      name: 'ask_word',
      inputSchema: { type: 'object', properties: { topic: { type: 'string' } } },
      handler: async (_args, ctx) => {
        if (!ctx.elicit) throw new Error('no client to ask');
        const answer = await ctx.elicit(
          {
            message: 'A word?',
            requestedSchema: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
          },
          { key: 'word' },
        );
        return `you said ${String(answer.content?.word)}`;
      },
    })
    .prompt({
      name: 'greet',
      arguments: [{ name: 'who', required: true, complete: () => ['ada', 'alan'] }],
      get: ({ who }) => `Hello, ${who}`,
    })
    .resource({ uri: 'app://config', name: 'config', read: () => '{"a":1}' })
    .resourceTemplate({ uriTemplate: 'app://items/{id}', name: 'item', read: () => 'item' });
}

async function expectSpan(id: string, method: string, version: string): Promise<void> {
  const span = await spanEnded(method, (s) => attr(s, 'jsonrpc.request.id') === id);
  assert.equal(span.kind, SpanKind.SERVER, id);
  assert.equal(attr(span, 'mcp.method.name'), method, id);
  assert.equal(attr(span, 'mcp.protocol.version'), version, id);
}

describe('request spans: the remaining methods, and MRTR rounds', () => {
  let server: McpServer;
  let client: InProcessClient;

  before(async () => {
    server = buildServer();
    client = new InProcessClient(server);
    await client.initialize('2025-11-25');
  });
  after(() => server.close());

  it('makes a SERVER span for completions, subscriptions and the tasks methods (legacy)', async () => {
    const calls: Array<[string, Record<string, unknown>]> = [
      [
        'completion/complete',
        { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: 'a' } },
      ],
      ['resources/subscribe', { uri: 'app://config' }],
      ['resources/unsubscribe', { uri: 'app://config' }],
      ['tasks/list', {}],
      ['tasks/get', { taskId: 'no-such-task' }],
      ['tasks/result', { taskId: 'no-such-task' }],
      ['tasks/cancel', { taskId: 'no-such-task' }],
    ];
    for (const [method, params] of calls) {
      const id = `legacy-${method}`;
      await client.request(method, params, id);
      await expectSpan(id, method, '2025-11-25');
    }
  });

  it('makes a SERVER span for them in the 2026-07-28 era too, the listen stream included', async () => {
    const calls: Array<[string, Record<string, unknown>]> = [
      ['resources/templates/list', {}],
      [
        'completion/complete',
        { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: 'a' } },
      ],
      ['tasks/get', { taskId: 'no-such-task' }],
      ['tasks/update', { taskId: 'no-such-task', inputResponses: {} }],
      ['tasks/cancel', { taskId: 'no-such-task' }],
    ];
    for (const [method, params] of calls) {
      const id = `modern-${method}`;
      await client.request(method, { ...params, _meta: envelope() }, id);
      await expectSpan(id, method, '2026-07-28');
    }
    // The listen stream stays open until the client cancels it: its span ends then.
    void client.request('subscriptions/listen', { _meta: envelope() }, 'modern-listen');
    await new Promise((resolve) => setTimeout(resolve, 50));
    client.notify('notifications/cancelled', { requestId: 'modern-listen', _meta: envelope() });
    await expectSpan('modern-listen', 'subscriptions/listen', '2026-07-28');
  });

  it("makes a SERVER span for the Skills extension's methods in both eras", async () => {
    const root = mkdtempSync(join(tmpdir(), 'weft-otel-skills-'));
    mkdirSync(join(root, 'review'));
    writeFileSync(
      join(root, 'review', 'SKILL.md'),
      '---\nname: review\ndescription: Review a diff.\n---\nReview.\n',
    );
    const skilled = new McpServer({ name: 'telemetry-skills', version: '1.0.0' }).skills(root);
    const skilledClient = new InProcessClient(skilled);
    try {
      await skilledClient.initialize('2025-11-25');
      const calls: Array<[string, Record<string, unknown>]> = [
        ['skills/list', {}],
        ['skills/get', { uri: 'skill://review/SKILL.md' }],
        ['resources/directory/read', { uri: 'skill://review' }],
      ];
      for (const [method, params] of calls) {
        const legacy = await skilledClient.request(method, params, `legacy-${method}`);
        assert.equal(legacy.error, undefined, `${method}: ${JSON.stringify(legacy.error)}`);
        await expectSpan(`legacy-${method}`, method, '2025-11-25');
        await skilledClient.request(method, { ...params, _meta: envelope() }, `modern-${method}`);
        await expectSpan(`modern-${method}`, method, '2026-07-28');
      }
      const read = await spanEnded(
        'resources/directory/read',
        (s) => attr(s, 'jsonrpc.request.id') === 'legacy-resources/directory/read',
      );
      assert.equal(attr(read, 'mcp.resource.uri'), 'skill://review');
    } finally {
      await skilled.close();
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('makes each MRTR round its own span, the rounds sharing weft.mrtr.chain', async () => {
    const capabilities = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
    const call = (id: string, extra: Record<string, unknown>, topic = 'birds') =>
      client.request(
        'tools/call',
        { name: 'ask_word', arguments: { topic }, ...extra, _meta: envelope(capabilities) },
        id,
      );
    const first = await call('round-1', {});
    const state = first.result?.requestState;
    assert.equal(first.result?.resultType, 'input_required', JSON.stringify(first));
    const second = await call('round-2', {
      inputResponses: { word: { action: 'accept', content: { word: 'wren' } } },
      requestState: state,
    });
    assert.deepEqual(second.result?.content, [{ type: 'text', text: 'you said wren' }]);
    await call('other-1', {}, 'fish');
    // The very same call again (same tool, same arguments, same caller): another chain all the same.
    const twin = await call('twin-1', {});
    await call('twin-2', {
      inputResponses: { word: { action: 'accept', content: { word: 'kite' } } },
      requestState: twin.result?.requestState,
    });

    const span = (id: string) =>
      spanEnded('tools/call ask_word', (s) => attr(s, 'jsonrpc.request.id') === id);
    const [one, two, other, twinOne, twinTwo] = await Promise.all(
      ['round-1', 'round-2', 'other-1', 'twin-1', 'twin-2'].map(span),
    );
    assert.notEqual(one!.spanContext().spanId, two!.spanContext().spanId, 'a span per round');
    const chain = attr(one!, 'weft.mrtr.chain');
    assert.equal(typeof chain, 'string');
    assert.equal(attr(two!, 'weft.mrtr.chain'), chain, 'the retry carries the first round’s chain');
    assert.notEqual(
      attr(other!, 'weft.mrtr.chain'),
      chain,
      'another call (other arguments) is another chain',
    );
    assert.notEqual(attr(twinOne!, 'weft.mrtr.chain'), chain, 'an identical call is another chain');
    assert.equal(attr(twinTwo!, 'weft.mrtr.chain'), attr(twinOne!, 'weft.mrtr.chain'), 'its rounds share it');
    assert.ok(!String(twin.result?.requestState).includes(String(chain)), 'the id is inside the seal');
  });
});
