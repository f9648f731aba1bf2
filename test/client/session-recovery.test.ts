/**
 * `weft-mcp/client` over legacy HTTP recovers a session its server lost: the server process is
 * SIGKILLed and started again, so it answers the old session id with 404 and a JSON-RPC error body.
 * The spec says the client MUST then start a new session; the client does, once for all the
 * requests that met the 404 together, and sends each of them again (they were refused before they
 * ran). A tasks/* request is not sent again: its task lived in the lost session.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, test } from 'node:test';
import { connect, type McpClient, McpError } from '../../lib/client/index.js';
import { killed, startUpstream } from '../gateway/restartable-process.js';
import { freePort } from '../support/free-port.js';

const children: ChildProcess[] = [];
const clients: McpClient[] = [];
after(async () => {
  for (const client of clients) await client.close().catch(() => {});
  for (const child of children) await killed(child);
});

const textOf = (result: Record<string, unknown>) => (result.content as { text: string }[])[0]?.text;

test('a 404 with a JSON body renews the legacy session once and retries the refused calls', async () => {
  const port = await freePort();
  children.push(await startUpstream(port, 'before'));
  let renewals = 0;
  const client = await connect(`http://127.0.0.1:${port}/mcp`, {
    protocol: 'legacy',
    onSessionRenewed: () => renewals++,
  });
  clients.push(client);
  assert.equal(textOf(await client.callTool('echo', { text: 'one' })), 'before: one');
  const firstSession = (client.transport as { sessionId?: string }).sessionId;

  await killed(children.pop()!);
  children.push(await startUpstream(port, 'after'));
  // The restarted server answers the stale session 404 with a JSON-RPC error body (checked here,
  // since that body is what the client used to take for an ordinary answer).
  const raw = await fetch(`http://127.0.0.1:${port}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': firstSession!,
      'mcp-protocol-version': client.protocolVersion,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  assert.equal(raw.status, 404);
  assert.match(raw.headers.get('content-type') ?? '', /json/);
  await raw.text();

  const answers = await Promise.all(['a', 'b', 'c', 'd'].map((text) => client.callTool('echo', { text })));
  assert.deepEqual(answers.map(textOf), ['after: a', 'after: b', 'after: c', 'after: d']);
  assert.equal(renewals, 1, 'one new session for the four calls that met the 404');
  assert.notEqual((client.transport as { sessionId?: string }).sessionId, firstSession);
  assert.deepEqual((await client.listTools()).map((tool) => tool.name).sort(), ['echo', 'only_after']);

  // A task of the lost session is not asked for on the new one.
  await killed(children.pop()!);
  children.push(await startUpstream(port, 'after'));
  await assert.rejects(client.getTask('some-task'), (error: unknown) => {
    assert.ok(error instanceof McpError);
    assert.match(error.message, /lost the session this task belonged to/);
    return true;
  });
  assert.equal(renewals, 2);
  assert.equal(textOf(await client.callTool('echo', { text: 'e' })), 'after: e');
});
