/**
 * A thread that dies after it was handed a call but before the call's handler started ran none of
 * the call: the call is posted once more, on a fresh thread, and the server log says why. A thread
 * that dies a second time for the same call is that call's answer (-32603). A thread that dies while
 * its handler runs is never posted again (the fault matrix covers those: the handler may have done
 * part of its work).
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { McpServer } from '../../lib/index.js';
import { InProcessClient } from '../support/in-process-client.js';
import { diesAtLoad, diesOnceAtLoad, firstLoadMarker } from './dies-at-load-tools.js';

const logged: string[] = [];
const server = new McpServer({
  name: 'death-before-handler',
  version: '1',
  timeoutMs: 10_000,
  pool: { maxThreads: 2 },
  logError: (message) => logged.push(message),
})
  .tool(diesOnceAtLoad)
  .tool(diesAtLoad);
const client = new InProcessClient(server);
await client.initialize();
after(async () => {
  await server.close();
  rmSync(firstLoadMarker(), { force: true });
});

describe('a thread that dies before its call’s handler starts', () => {
  it('posts the call again on a fresh thread, and logs why', async () => {
    rmSync(firstLoadMarker(), { force: true });
    const answer = await client.callTool('dies_once_at_load', {});
    assert.deepEqual(answer.result?.content, [{ type: 'text', text: 'ran' }], JSON.stringify(answer));
    const told = logged.filter((line) => line.includes('"dies_once_at_load"'));
    assert.equal(told.length, 1, told.join('\n'));
    assert.match(told[0]!, /ended before its handler started; the call is posted again/);
  });

  it('answers -32603 when the second thread dies too, and serves on', async () => {
    logged.length = 0;
    const answer = await client.callTool('dies_at_load', {});
    assert.equal(answer.error?.code, -32603, JSON.stringify(answer));
    assert.match(answer.error!.message, /stopped unexpectedly/);
    assert.equal(logged.filter((line) => /posted again/.test(line)).length, 1, 'posted again once only');
    assert.ok(
      logged.some((line) => /dies_at_load.*died/.test(line)),
      logged.join('\n'),
    );
    assert.deepEqual((await client.callTool('dies_once_at_load', {})).result?.content, [
      { type: 'text', text: 'ran' },
    ]);
    assert.equal(server.stats.freeThreads, 2, 'every slot is back');
  });
});
