/**
 * Tags: enabledTags / disabledTags hide tagged tools, prompts and resources from every method (not
 * listed, not callable, not readable), enableTag / disableTag change that at run time with
 * list_changed, and tags are never published.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { McpServer } from '../../lib/index.js';
import { InProcessClient } from '../support/in-process-client.js';

const noArgs = { type: 'object', properties: {} } as const;

function taggedServer(options: { enabledTags?: string[]; disabledTags?: string[] }): McpServer {
  return new McpServer({ name: 'tags', version: '1', ...options })
    .tool({ name: 'add', inputSchema: noArgs, tags: ['math'], handler: () => 'sum' })
    .tool({ name: 'wipe', inputSchema: noArgs, tags: ['admin', 'danger'], handler: () => 'wiped' })
    .tool({ name: 'plain', inputSchema: noArgs, handler: () => 'plain' })
    .prompt({ name: 'audit', tags: ['admin'], get: () => 'audit everything' })
    .prompt({ name: 'greet', get: () => 'hello' })
    .resource({ uri: 'app://secrets', name: 'secrets', tags: ['admin'], read: () => 'hunter2' })
    .resource({ uri: 'app://readme', name: 'readme', read: () => 'read me' });
}

async function connected(server: McpServer): Promise<InProcessClient> {
  const client = new InProcessClient(server);
  await client.initialize();
  return client;
}

const afterTurn = () => new Promise((resolve) => setImmediate(resolve));

const names = (reply: { result?: Record<string, unknown> }, key: string) =>
  ((reply.result?.[key] ?? []) as { name: string }[]).map((entry) => entry.name);

describe('tags', () => {
  it('hides what a disabled tag marks from every method, and shows it again on enableTag', async () => {
    const server = taggedServer({ disabledTags: ['admin'] });
    const client = await connected(server);
    try {
      assert.deepEqual(names(await client.request('tools/list'), 'tools'), ['add', 'plain']);
      assert.deepEqual(names(await client.request('prompts/list'), 'prompts'), ['greet']);
      assert.deepEqual(names(await client.request('resources/list'), 'resources'), ['readme']);
      const call = await client.callTool('wipe', {});
      assert.ok(call.error || call.result?.isError, 'a hidden tool cannot be called');
      assert.ok((await client.request('prompts/get', { name: 'audit' })).error, 'nor a hidden prompt got');
      assert.ok((await client.request('resources/read', { uri: 'app://secrets' })).error, 'nor read');

      assert.equal(server.enableTag('admin'), true);
      await afterTurn(); // list changes are told once the turn ends (coalesced)
      for (const kind of ['tools', 'prompts', 'resources']) {
        assert.equal(client.notifications(`notifications/${kind}/list_changed`).length, 1, kind);
      }
      const tools = ((await client.request('tools/list')).result?.tools ?? []) as Record<string, unknown>[];
      assert.deepEqual(
        tools.map((tool) => tool.name),
        ['add', 'plain', 'wipe'],
      );
      assert.ok(
        tools.every((tool) => tool.tags === undefined),
        'tags stay local',
      );
      assert.equal((await client.callTool('wipe', {})).result?.content?.[0]?.text, 'wiped');
      const secret = await client.request('resources/read', { uri: 'app://secrets' });
      assert.equal(((secret.result?.contents ?? []) as { text: string }[])[0]?.text, 'hunter2');

      assert.equal(server.disableTag('danger'), true);
      assert.equal(server.disableTag('danger'), false, 'already hidden');
      await afterTurn();
      assert.equal(client.notifications('notifications/tools/list_changed').length, 2);
      assert.equal(
        client.notifications('notifications/prompts/list_changed').length,
        1,
        'no prompt carries the tag, so the prompt list did not change',
      );
      assert.deepEqual(names(await client.request('tools/list'), 'tools'), ['add', 'plain']);
    } finally {
      client.close();
      await server.close();
    }
  });

  it('exposes only what carries an enabled tag when enabledTags is given', async () => {
    const server = taggedServer({ enabledTags: ['math'] });
    const client = await connected(server);
    try {
      assert.deepEqual(names(await client.request('tools/list'), 'tools'), ['add']);
      const hidden = await client.callTool('plain', {});
      assert.ok(hidden.error || hidden.result?.isError, 'an untagged tool is hidden under enabledTags');
      assert.equal((await client.callTool('add', {})).result?.content?.[0]?.text, 'sum');
    } finally {
      client.close();
      await server.close();
    }
  });

  it('refuses tags that are not an array of non-empty strings, saying so', () => {
    const server = new McpServer({ name: 'tags', version: '1' });
    assert.throws(
      () => server.tool({ name: 'bad', inputSchema: noArgs, tags: 'math' as never, handler: () => '' }),
      /tags must be an array of non-empty strings/,
    );
    assert.throws(
      () => server.prompt({ name: 'bad', tags: [''], get: () => '' }),
      /tags must be an array of non-empty strings/,
    );
    assert.throws(
      () => new McpServer({ name: 'tags', version: '1', disabledTags: 'admin' as never }),
      /disabledTags: tags must be an array/,
    );
  });
});
