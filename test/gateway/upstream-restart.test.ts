/**
 * A gateway outlives its upstream's restart, in both eras: the upstream (a real process, mounted by
 * URL) is SIGKILLed while calls are in flight and started again on the same port with another tool
 * set. The calls caught by the kill fail naming the mount (never its URL, whose query carries a
 * key); then, within the documented reconnect time, the gateway lists the restarted upstream's own
 * tools (the old-only tool gone, the new one there), tells its client list_changed, and calls work
 * again. The client is the official SDK 1.x client.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, describe, test } from 'node:test';
import { Client as Sdk1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as Sdk1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { McpServer } from '../../lib/index.js';
import { freePort } from '../support/free-port.js';
import { killed, startUpstream } from './restartable-process.js';

/** The mount's maxBackoffMs in these tests; docs/composition.md's bound is maxBackoffMs plus one handshake and listing. */
const MAX_BACKOFF_MS = 500;
const RECOVERY_LIMIT_MS = MAX_BACKOFF_MS + 4000;

const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text;

for (const era of ['legacy', 'modern'] as const) {
  describe(`a ${era}-era mount whose upstream is killed and restarted`, () => {
    const children: ChildProcess[] = [];
    const servers: McpServer[] = [];
    after(async () => {
      for (const child of children) await killed(child);
      for (const server of servers) await server.close();
    });

    test('serves calls again with the restarted upstream’s own listing, within the reconnect time', async () => {
      const port = await freePort();
      children.push(await startUpstream(port, 'before'));
      const logged: string[] = [];
      const gateway = new McpServer({
        name: 'gateway',
        version: '0.0.0',
        timeoutMs: 20_000,
        logError: (message) => logged.push(message),
      });
      servers.push(gateway);
      await gateway.mount(`http://127.0.0.1:${port}/mcp?api_key=SECRET-KEY`, {
        namespace: 'up',
        protocol: era,
        maxBackoffMs: MAX_BACKOFF_MS,
      });
      await gateway.listen({ http: { port: 0, host: '127.0.0.1' }, handleSignals: false });
      const client = new Sdk1Client({ name: 'sdk1', version: '1.0.0' });
      let listChanged = 0;
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        listChanged++;
      });
      await client.connect(new Sdk1Http(new URL(`http://127.0.0.1:${gateway.addresses.http?.port}/mcp`)));
      const names = async () => (await client.listTools()).tools.map((tool) => tool.name).sort();
      assert.deepEqual(await names(), ['up_echo', 'up_only_before', 'up_slow']);
      assert.equal(
        textOf(await client.callTool({ name: 'up_echo', arguments: { text: 'hi' } })),
        'before: hi',
      );

      // Calls in the middle of their work when the upstream dies.
      const inFlight = Promise.allSettled(
        [1, 2, 3].map(() => client.callTool({ name: 'up_slow', arguments: {} })),
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      const changesBefore = listChanged;
      await killed(children.pop()!);
      for (const outcome of await inFlight) {
        assert.equal(outcome.status, 'rejected', 'a call caught by the kill fails');
        const message = String((outcome as PromiseRejectedResult).reason?.message);
        assert.match(message, /the mount "up"/);
        assert.doesNotMatch(message, /SECRET-KEY|127\.0\.0\.1/);
      }

      children.push(await startUpstream(port, 'after'));
      const restarted = performance.now();
      let listing: string[] = [];
      while (performance.now() - restarted < RECOVERY_LIMIT_MS) {
        listing = await names();
        if (listing.includes('up_only_after') && !listing.includes('up_only_before')) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const recoveredMs = performance.now() - restarted;
      assert.deepEqual(
        listing,
        ['up_echo', 'up_only_after'],
        `the restarted upstream's listing (${recoveredMs.toFixed(0)} ms)`,
      );
      // The notification travels on the session's GET stream, not with the listing's answer, and
      // changes are announced once per turn: it may land just after the new listing is read.
      const told = performance.now();
      while (listChanged <= changesBefore && performance.now() - told < 2000)
        await new Promise((resolve) => setTimeout(resolve, 20));
      assert.ok(listChanged > changesBefore, 'the client was told list_changed');
      assert.equal(
        textOf(await client.callTool({ name: 'up_echo', arguments: { text: 'again' } })),
        'after: again',
      );
      assert.equal(textOf(await client.callTool({ name: 'up_only_after', arguments: {} })), 'a');
      // The log says which upstream and why, with the key masked.
      assert.ok(
        logged.some((line) => line.includes('lost the link') && line.includes('127.0.0.1')),
        logged.join('\n'),
      );
      assert.ok(
        logged.every((line) => !line.includes('SECRET-KEY')),
        logged.join('\n'),
      );
      process.stderr.write(
        `# ${era}: the restarted upstream's listing served after ${recoveredMs.toFixed(0)} ms\n`,
      );
      await client.close();
    });
  });
}
