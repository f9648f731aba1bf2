/**
 * `list_changed` is coalesced per turn, for every kind of list and whether the change is local or
 * comes from a mounted upstream: it says only "fetch the list again", so a thousand tools toggled
 * at once are one notification per session, not a thousand (an upstream with 1,000 tools toggling
 * a tag used to send 20,000 notifications to 20 sessions and block the event loop 375 ms).
 */
import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { describe, it } from 'node:test';
import { McpServer } from '../../lib/index.js';
import { InProcessClient } from '../support/in-process-client.js';

const noArgs = { type: 'object', properties: {} } as const;
const KINDS = ['tools', 'prompts', 'resources'] as const;

async function sessions(server: McpServer, count: number): Promise<InProcessClient[]> {
  const clients = Array.from({ length: count }, () => new InProcessClient(server));
  for (const client of clients) await client.initialize();
  return clients;
}

const heard = (client: InProcessClient, kind: string) =>
  client.received.filter(
    (message) => 'method' in message && message.method === `notifications/${kind}/list_changed`,
  ).length;

const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

describe('security: list_changed storms are coalesced', () => {
  it('1,000 local tools, 100 prompts and 100 resources added and removed: one notification per kind per session', async () => {
    const server = new McpServer({ name: 'storm', version: '1' })
      .tool({ name: 'seed', inputSchema: noArgs, handler: () => 'seed' })
      .prompt({ name: 'seed', get: () => 'seed' })
      .resource({ uri: 'app://seed', name: 'seed', read: () => 'seed' });
    const clients = await sessions(server, 20);
    for (let i = 0; i < 1_000; i++) server.tool({ name: `t${i}`, inputSchema: noArgs, handler: () => 'x' });
    for (let i = 0; i < 100; i++) {
      server.prompt({ name: `p${i}`, get: () => 'x' });
      server.resource({ uri: `app://r${i}`, name: `r${i}`, read: () => 'x' });
    }
    for (let i = 0; i < 1_000; i++) server.removeTool(`t${i}`);
    await settle();
    for (const client of clients) for (const kind of KINDS) assert.equal(heard(client, kind), 1, kind);
    await server.close();
  });

  it('a mounted upstream toggling a tag on 1,000 tools: 20 notifications to 20 sessions, the loop not blocked', async () => {
    const upstream = new McpServer({ name: 'upstream', version: '1' });
    for (let i = 0; i < 1_000; i++)
      upstream.tool({ name: `t${i}`, tags: ['bulk'], inputSchema: noArgs, handler: () => 'x' });
    const gateway = new McpServer({ name: 'gateway', version: '1' });
    await gateway.mount(upstream, { namespace: 'up' });
    const clients = await sessions(gateway, 20);
    await settle(); // the mount's own additions are told first
    const told = clients.reduce((sum, client) => sum + heard(client, 'tools'), 0);
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    upstream.disableTag('bulk');
    const listed = async () =>
      ((await clients[0]!.request('tools/list')).result?.tools as unknown[] | undefined)?.length ?? -1;
    for (let tries = 0; (await listed()) !== 0 && tries < 200; tries++) await settle();
    await settle();
    delay.disable();
    const total = clients.reduce((sum, client) => sum + heard(client, 'tools'), 0) - told;
    assert.equal(total, 20, `${total} tools/list_changed sent to 20 sessions`);
    const worstMs = delay.max / 1e6;
    assert.ok(worstMs < 200, `the event loop was blocked ${worstMs.toFixed(0)} ms`);
    await gateway.close();
    await upstream.close();
  });
});
