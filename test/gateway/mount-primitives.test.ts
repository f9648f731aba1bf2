/**
 * A gateway's mounted prompts, resources and templates: two weft gateways (one with namespaces,
 * one without) each mounting a weft upstream (modern, over HTTP) and an official SDK 1.x server
 * (legacy, on stdio). Through each, both official clients (1.x legacy, v2 modern) list, get, read,
 * read templated URIs, complete, subscribe and hear updates, and hear list changes; the SDK
 * upstream is killed and comes back.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client as V2Client, StreamableHTTPClientTransport as V2Http } from '@modelcontextprotocol/client';
import { Client as Sdk1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as Sdk1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { connect, type McpError } from '../../lib/client/index.js';
import { McpServer } from '../../lib/index.js';
import { startWeftUpstream, type WeftUpstream } from '../client/weft-upstream.js';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const sdkUpstream = () => ({ command: process.execPath, args: [here('./sdk1-primitives-server.js')] });

async function until(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The published names under a gateway: `ns_name` / `ns+uri` or verbatim. */
interface Naming {
  label: string;
  prompt(ns: 'w' | 's', name: string): string;
  uri(ns: 'w' | 's', uri: string): string;
}
const NAMESPACED: Naming = {
  label: 'namespaced',
  prompt: (ns, name) => `${ns}_${name}`,
  uri: (ns, uri) => `${ns}+${uri}`,
};
const VERBATIM: Naming = { label: 'without namespace', prompt: (_ns, name) => name, uri: (_ns, uri) => uri };

/** What both official clients are driven through: one shape over the 1.x and v2 APIs. */
interface Driver {
  listPrompts(): Promise<{ name: string }[]>;
  getPrompt(name: string, args?: Record<string, string>): Promise<{ messages: { content: unknown }[] }>;
  listResources(): Promise<{ uri: string }[]>;
  listTemplates(): Promise<{ uriTemplate: string }[]>;
  read(uri: string): Promise<{ uri: string; text?: string }[]>;
  complete(ref: Record<string, string>, name: string, value: string): Promise<string[]>;
  /** Subscribes to `uri` (legacy: resources/subscribe; modern: a listen stream with list changes too). */
  subscribe(uri: string): Promise<void>;
  updated: string[];
  promptsChanged: number;
  resourcesChanged: number;
  callTool(name: string): Promise<unknown>;
  close(): Promise<void>;
}

async function sdk1Driver(url: string): Promise<Driver> {
  const client = new Sdk1Client({ name: 'sdk1', version: '1.0.0' });
  await client.connect(new Sdk1Http(new URL(url)));
  const driver: Driver = {
    listPrompts: async () => (await client.listPrompts()).prompts,
    getPrompt: async (name, args) => (await client.getPrompt({ name, arguments: args })) as never,
    listResources: async () => (await client.listResources()).resources,
    listTemplates: async () => (await client.listResourceTemplates()).resourceTemplates,
    read: async (uri) => (await client.readResource({ uri })).contents as never,
    complete: async (ref, name, value) =>
      (await client.complete({ ref: ref as never, argument: { name, value } })).completion.values,
    subscribe: async (uri) => {
      await client.subscribeResource({ uri });
    },
    updated: [],
    promptsChanged: 0,
    resourcesChanged: 0,
    callTool: (name) => client.callTool({ name, arguments: {} }),
    close: () => client.close(),
  };
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    driver.updated.push(n.params.uri);
  });
  client.setNotificationHandler(PromptListChangedNotificationSchema, () => {
    driver.promptsChanged++;
  });
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
    driver.resourcesChanged++;
  });
  return driver;
}

async function v2Driver(url: string): Promise<Driver> {
  const client = new V2Client({ name: 'v2', version: '1.0.0' }, {
    versionNegotiation: { mode: { pin: '2026-07-28' } },
  } as never);
  await client.connect(new V2Http(new URL(url)) as never);
  const subscriptions: { close(): Promise<void> }[] = [];
  const driver: Driver = {
    listPrompts: async () => (await client.listPrompts()).prompts,
    getPrompt: async (name, args) => (await client.getPrompt({ name, arguments: args })) as never,
    listResources: async () => (await client.listResources()).resources,
    listTemplates: async () => (await client.listResourceTemplates()).resourceTemplates,
    read: async (uri) => (await client.readResource({ uri })).contents as never,
    complete: async (ref, name, value) =>
      (await client.complete({ ref: ref as never, argument: { name, value } })).completion.values,
    subscribe: async (uri) => {
      const subscription = await client.listen({
        resourceSubscriptions: [uri],
        promptsListChanged: true,
        resourcesListChanged: true,
      });
      assert.deepEqual(
        (subscription as { honoredFilter?: { resourceSubscriptions?: string[] } }).honoredFilter
          ?.resourceSubscriptions,
        [uri],
      );
      subscriptions.push(subscription);
    },
    updated: [],
    promptsChanged: 0,
    resourcesChanged: 0,
    callTool: (name) => client.callTool({ name, arguments: {} }),
    close: async () => {
      for (const subscription of subscriptions) await subscription.close().catch(() => {});
      await client.close();
    },
  };
  client.setNotificationHandler('notifications/resources/updated', (n) => {
    driver.updated.push((n as { params: { uri: string } }).params.uri);
  });
  client.setNotificationHandler('notifications/prompts/list_changed', () => {
    driver.promptsChanged++;
  });
  client.setNotificationHandler('notifications/resources/list_changed', () => {
    driver.resourcesChanged++;
  });
  return driver;
}

const textOf = (contents: { text?: string }[]) => contents.map((part) => part.text).join('|');
const messageText = (result: { messages: { content: unknown }[] }) =>
  result.messages.map((message) => (message.content as { text?: string }).text).join('|');

let upstream: WeftUpstream;
const gateways: { naming: Naming; server: McpServer; url: string }[] = [];

before(async () => {
  upstream = await startWeftUpstream();
  for (const naming of [NAMESPACED, VERBATIM]) {
    const server = new McpServer({ name: `gateway ${naming.label}`, version: '0.0.0', timeoutMs: 20_000 });
    const namespaced = naming === NAMESPACED;
    await server.mount(upstream.httpUrl, namespaced ? { namespace: 'w' } : {});
    await server.mount(
      sdkUpstream(),
      namespaced
        ? { namespace: 's', label: 'sdk-memo', maxBackoffMs: 200 }
        : { label: 'sdk-memo', maxBackoffMs: 200 },
    );
    await server.listen({ http: { port: 0, host: '127.0.0.1' }, handleSignals: false });
    gateways.push({ naming, server, url: `http://127.0.0.1:${server.addresses.http?.port}/mcp` });
  }
});
after(async () => {
  for (const { server } of gateways) await server.close();
  await upstream.close();
});

for (const naming of [NAMESPACED, VERBATIM]) {
  const gateway = () => gateways.find((g) => g.naming === naming)!;
  for (const [clientName, open] of [
    ['SDK 1.x (legacy)', sdk1Driver],
    ['SDK v2 (modern)', v2Driver],
  ] as const) {
    describe(`mounted prompts and resources, ${naming.label}, ${clientName}`, () => {
      test('lists prompts, resources and templates in name order, under the published names', async () => {
        const client = await open(gateway().url);
        const prompts = (await client.listPrompts()).map((p) => p.name);
        assert.deepEqual(prompts, [...prompts].sort());
        for (const name of [naming.prompt('s', 'greet'), naming.prompt('w', 'test_prompt_with_arguments')])
          assert.ok(prompts.includes(name), `${name} in ${prompts.join()}`);
        const resources = (await client.listResources()).map((r) => r.uri);
        assert.deepEqual(resources, [...resources].sort());
        for (const uri of [naming.uri('s', 'memo://today'), naming.uri('w', 'test://static-text')])
          assert.ok(resources.includes(uri), `${uri} in ${resources.join()}`);
        const templates = (await client.listTemplates()).map((t) => t.uriTemplate);
        for (const template of [naming.uri('s', 'note://{id}'), naming.uri('w', 'test://template/{id}/data')])
          assert.ok(templates.includes(template), `${template} in ${templates.join()}`);
        await client.close();
      });

      test('gets prompts, reads resources and templated URIs, completes, through both upstreams', async () => {
        const client = await open(gateway().url);
        assert.equal(
          messageText(await client.getPrompt(naming.prompt('s', 'greet'), { who: 'ada' })),
          'Hello ada',
        );
        assert.equal(
          messageText(
            await client.getPrompt(naming.prompt('w', 'test_prompt_with_arguments'), {
              arg1: 'a',
              arg2: 'b',
            }),
          ),
          "Prompt with arguments: arg1='a', arg2='b'",
        );
        const memo = await client.read(naming.uri('s', 'memo://today'));
        assert.equal(textOf(memo), 'memo of today');
        assert.equal(memo[0]?.uri, naming.uri('s', 'memo://today'), 'the contents name the published URI');
        assert.equal(textOf(await client.read(naming.uri('s', 'note://n7'))), 'note n7');
        const data = JSON.parse(textOf(await client.read(naming.uri('w', 'test://template/42/data'))));
        assert.equal(data.id, '42');
        assert.deepEqual(
          await client.complete({ type: 'ref/prompt', name: naming.prompt('s', 'greet') }, 'who', 'a'),
          ['ada', 'alan'],
        );
        assert.deepEqual(
          await client.complete(
            { type: 'ref/prompt', name: naming.prompt('w', 'test_prompt_with_arguments') },
            'arg1',
            'par',
          ),
          ['paris', 'park', 'party'],
        );
        assert.deepEqual(
          await client.complete({ type: 'ref/resource', uri: naming.uri('s', 'note://{id}') }, 'id', 'n'),
          ['n1', 'n2'],
        );
        assert.deepEqual(
          await client.complete(
            { type: 'ref/resource', uri: naming.uri('w', 'test://template/{id}/data') },
            'id',
            '4',
          ),
          ['456'],
        );
        await client.close();
      });

      test("an upstream's errors pass through with their code and message (no local re-check)", async () => {
        const client = await open(gateway().url);
        const direct = await connect(upstream.httpUrl, { protocol: 'modern' });
        const expected = await direct.getPrompt('test_prompt_with_arguments', { arg1: 'a' }).then(
          () => assert.fail('the upstream refuses a missing argument'),
          (error: McpError) => error,
        );
        await assert.rejects(
          client.getPrompt(naming.prompt('w', 'test_prompt_with_arguments'), { arg1: 'a' }),
          (error: Error & { code?: number }) => {
            assert.equal(error.code, expected.code);
            assert.ok(
              error.message.includes(expected.message),
              `${error.message} carries ${expected.message}`,
            );
            return true;
          },
        );
        // A URI no mounted entry answers is weft's own not-found (each era has its code).
        await assert.rejects(client.read(naming.uri('w', 'test://nothing-here')), /not found/i);
        await direct.close();
        await client.close();
      });

      test('subscribes to a mounted resource: the upstream updates reach the client', async () => {
        const client = await open(gateway().url);
        await client.subscribe(naming.uri('s', 'memo://today'));
        await client.subscribe(naming.uri('w', 'test://watched-resource'));
        // Upstream subscriptions are made when the first client subscribes; let them land.
        await new Promise((resolve) => setTimeout(resolve, 300));
        const touched = (await client.callTool(naming.prompt('s', 'touch'))) as {
          content: { text: string }[];
        };
        assert.equal(touched.content[0]?.text, 'touched, subscribed', 'the gateway subscribed upstream');
        await until(
          () => client.updated.includes(naming.uri('s', 'memo://today')),
          'the SDK upstream update',
        );
        upstream.server.resourceUpdated('test://watched-resource');
        await until(
          () => client.updated.includes(naming.uri('w', 'test://watched-resource')),
          'the weft upstream update',
        );
        await client.close();
      });

      test('list changes upstream reach the client and the listing', async () => {
        const client = await open(gateway().url);
        // A modern client hears list changes on a listen stream; opening one here.
        await client.subscribe(naming.uri('w', 'test://static-text'));
        const name = `late_${clientName.startsWith('SDK 1') ? 'one' : 'two'}_${naming === NAMESPACED ? 'ns' : 'plain'}`;
        upstream.server.prompt({ name, get: () => 'late prompt' });
        await until(() => client.promptsChanged > 0, 'prompts list_changed');
        let names: string[] = [];
        for (let i = 0; i < 100 && !names.includes(naming.prompt('w', name)); i++) {
          names = (await client.listPrompts()).map((p) => p.name);
          if (!names.includes(naming.prompt('w', name)))
            await new Promise((resolve) => setTimeout(resolve, 50));
        }
        assert.ok(names.includes(naming.prompt('w', name)), names.join());
        assert.equal(messageText(await client.getPrompt(naming.prompt('w', name))), 'late prompt');
        upstream.server.resource({ uri: `test://${name}`, name, read: () => 'late resource' });
        await until(() => client.resourcesChanged > 0, 'resources list_changed');
        let read = '';
        for (let i = 0; i < 100 && read !== 'late resource'; i++) {
          read = await client.read(naming.uri('w', `test://${name}`)).then(textOf, () => '');
          if (read !== 'late resource') await new Promise((resolve) => setTimeout(resolve, 50));
        }
        assert.equal(read, 'late resource');
        upstream.server.removePrompt(name);
        upstream.server.removeResource(`test://${name}`);
        await client.close();
      });
    });
  }

  test(`${naming.label}: an SDK upstream killed answers -32603 saying so, and comes back with its listing`, async () => {
    const client = await sdk1Driver(gateway().url);
    await client.subscribe(naming.uri('s', 'memo://today'));
    await client.callTool(naming.prompt('s', 'die'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    await assert.rejects(
      client.getPrompt(naming.prompt('s', 'greet'), { who: 'x' }),
      (error: Error & { code?: number }) => {
        assert.equal(error.code, -32603);
        // Named by its label, never by its command line (which may carry secrets).
        assert.match(error.message, /the mount "sdk-memo"/);
        assert.doesNotMatch(error.message, /sdk1-primitives-server/);
        return true;
      },
    );
    await assert.rejects(client.read(naming.uri('s', 'memo://today')), /the mount "sdk-memo" is down/);
    let answer = '';
    for (let i = 0; i < 200 && answer !== 'Hello back'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      answer = await client
        .getPrompt(naming.prompt('s', 'greet'), { who: 'back' })
        .then(messageText, () => '');
    }
    assert.equal(answer, 'Hello back');
    assert.equal(textOf(await client.read(naming.uri('s', 'memo://today'))), 'memo of today');
    // The upstream subscription was renewed on the new connection: its updates still arrive.
    let touched = '';
    for (let i = 0; i < 40 && touched !== 'touched, subscribed'; i++) {
      const result = (await client.callTool(naming.prompt('s', 'touch'))) as { content: { text: string }[] };
      touched = result.content[0]?.text ?? '';
      if (touched !== 'touched, subscribed') await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(touched, 'touched, subscribed');
    await until(
      () => client.updated.includes(naming.uri('s', 'memo://today')),
      'an update after the restart',
    );
    // A prompt added to the restarted upstream reaches the listing (its list_changed is heard again).
    await client.callTool(naming.prompt('s', 'add_prompt'));
    await until(() => client.promptsChanged > 0, 'list_changed from the restarted upstream');
    let names: string[] = [];
    for (let i = 0; i < 100 && !names.includes(naming.prompt('s', 'later')); i++) {
      names = (await client.listPrompts()).map((p) => p.name);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(names.includes(naming.prompt('s', 'later')), names.join());
    await client.close();
  });
}

describe('mounted primitives are sealed and paged by weft', () => {
  test('only the seal registers an exact prompt, resource or template; ordinary options cannot', async () => {
    const { PromptRegistry } = await import('../../lib/prompts/prompt-registry.js');
    const { ResourceRegistry } = await import('../../lib/resources/resource-registry.js');
    const forged = Symbol('weft.exact-tool-registration') as never;
    const reader = { read: async () => [], watch: () => () => {} };
    assert.throws(
      () =>
        new PromptRegistry(() => {}).addExact(forged, {
          descriptor: { name: 'p' },
          get: async () => ({}),
          complete: async () => ({}),
        }),
      /only be registered by server.mount/,
    );
    const resources = new ResourceRegistry(() => {});
    assert.throws(
      () => resources.addExact(forged, { ...reader, descriptor: { uri: 'a://b' } }),
      /server.mount/,
    );
    assert.throws(
      () =>
        resources.addExactTemplate(forged, {
          ...reader,
          descriptor: { uriTemplate: 'a://{b}' },
          complete: async () => ({}),
        }),
      /server.mount/,
    );
    const server = new McpServer({ name: 'plain', version: '0.0.0' });
    assert.throws(
      () => server.prompt({ name: 'p', get: () => 'x', exact: true } as never),
      /unknown option "exact"/,
    );
  });

  test("mounted prompts and resources follow the gateway's page size, merged with local ones", async () => {
    const server = new McpServer({ name: 'paged', version: '0.0.0', pageSize: 2 });
    server.prompt({ name: 'local_prompt', get: () => 'local' });
    await server.mount(upstream.server, { namespace: 'w' });
    await server.listen({ http: { port: 0, host: '127.0.0.1' }, handleSignals: false });
    const client = new Sdk1Client({ name: 'sdk1', version: '1.0.0' });
    await client.connect(new Sdk1Http(new URL(`http://127.0.0.1:${server.addresses.http?.port}/mcp`)));
    const first = await client.listPrompts();
    assert.equal(first.prompts.length, 2);
    assert.equal(typeof first.nextCursor, 'string');
    const names = first.prompts.map((p) => p.name);
    let cursor = first.nextCursor;
    while (cursor !== undefined) {
      const page = await client.listPrompts({ cursor });
      names.push(...page.prompts.map((p) => p.name));
      cursor = page.nextCursor;
    }
    assert.deepEqual(names, [...names].sort());
    assert.ok(names.includes('local_prompt') && names.includes('w_test_simple_prompt'), names.join());
    const resources = await client.listResources();
    assert.equal(resources.resources.length, 2);
    assert.equal(typeof resources.nextCursor, 'string');
    await client.close();
    await server.close();
  });
});

describe("an upstream's question while a mounted prompt is built reaches the client in its era", () => {
  const answer = async () => ({ action: 'accept' as const, content: { context: 'gateways' } });
  const expected = 'Write with this context in mind: gateways';

  test('SDK 1.x client (legacy): asked live', async () => {
    const { ElicitRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
    const client = new Sdk1Client({ name: 'sdk1', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, answer);
    await client.connect(new Sdk1Http(new URL(gateways[0]!.url)));
    const prompt = await client.getPrompt({ name: 'w_test_input_required_result_prompt' });
    assert.equal(messageText(prompt as never), expected);
    await client.close();
  });

  test('SDK v2 client (modern): in rounds', async () => {
    const client = new V2Client({ name: 'v2', version: '1.0.0' }, {
      capabilities: { elicitation: {} },
      versionNegotiation: { mode: { pin: '2026-07-28' } },
    } as never);
    client.setRequestHandler('elicitation/create', answer as never);
    await client.connect(new V2Http(new URL(gateways[0]!.url)) as never);
    const prompt = await client.getPrompt({ name: 'w_test_input_required_result_prompt' });
    assert.equal(messageText(prompt as never), expected);
    await client.close();
  });
});
