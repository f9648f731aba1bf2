/**
 * Item 7 of the hardening issue: every auth hook is called so that whatever it does (throw at once,
 * reject, answer something that is not a verdict) becomes a refusal, 500 "Authentication failed",
 * with the detail logged, on HTTP and WebSocket alike, and the server serves the next caller. A
 * synchronous throw in ws's upgrade handler used to be an uncaught exception: the process died.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { McpServer } from '../../lib/index.js';
import type { AuthHook } from '../../lib/transports/bearer-auth.js';
import { upgradeStatus } from '../support/websocket-upgrade.js';

/** A hook that misbehaves as the `x-hook` header says, and lets `x-hook: ok` in. */
const unruly: AuthHook = ((request: IncomingMessage) => {
  switch (request.headers['x-hook']) {
    case 'throw':
      throw new Error('secret backend at 10.0.0.9 is down');
    case 'reject':
      return Promise.reject(new Error('rejected'));
    case 'nothing':
      return undefined;
    default:
      return true;
  }
}) as AuthHook;

const BEHAVIOURS = ['throw', 'reject', 'nothing'];

describe('security: an auth hook that fails refuses the request, the server lives on', () => {
  let server: McpServer;
  let base: string;
  const logged: string[] = [];
  before(async () => {
    server = new McpServer({ name: 'auth-failures', version: '1', logError: (line) => logged.push(line) });
    await server.listen({
      http: { port: 0, auth: unruly },
      ws: { port: 0, auth: unruly },
      handleSignals: false,
    });
    base = `127.0.0.1:${server.addresses.http!.port}`;
  });
  after(() => server.close());

  const initialize = (hook: string) =>
    fetch(`http://${base}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-hook': hook,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'a', version: '1' } },
      }),
    });

  for (const behaviour of BEHAVIOURS) {
    it(`HTTP: a hook that does "${behaviour}" is a 500 "Authentication failed", logged, nothing leaked`, async () => {
      logged.length = 0;
      const response = await initialize(behaviour);
      assert.equal(response.status, 500);
      const body = (await response.json()) as { error: { message: string } };
      assert.equal(body.error.message, 'Authentication failed');
      assert.doesNotMatch(JSON.stringify(body), /10\.0\.0\.9/);
      assert.ok(
        logged.some((line) => /auth hook/.test(line)),
        logged.join('\n'),
      );
      assert.equal((await initialize('ok')).status, 200);
    });

    it(`WebSocket: a hook that does "${behaviour}" refuses the upgrade with 500, the next one opens`, async () => {
      logged.length = 0;
      const url = `ws://127.0.0.1:${server.addresses.ws!.port}`;
      assert.equal(await upgradeStatus(url, { 'x-hook': behaviour }), 500);
      assert.ok(
        logged.some((line) => /auth hook/.test(line)),
        logged.join('\n'),
      );
      assert.equal(await upgradeStatus(url, { 'x-hook': 'ok' }), 101);
    });
  }
});
