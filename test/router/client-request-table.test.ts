/**
 * Closing a session rejects the requests it sent the client and is still waiting on
 * (client-request-table.ts). The reason is made only when something waits, since a modern HTTP
 * request closes a session of its own every time it is answered.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonRpcMessage } from '../../lib/protocol/json-rpc.js';
import { ClientRequestTable } from '../../lib/router/client-request-table.js';

const sink = () => {
  const sent: (JsonRpcMessage | JsonRpcMessage[])[] = [];
  return { sent, send: (message: JsonRpcMessage | JsonRpcMessage[]) => void sent.push(message) };
};

describe('ClientRequestTable.rejectAll', () => {
  it('rejects every pending request with the one reason it makes', async () => {
    const table = new ClientRequestTable();
    const via = sink();
    const first = table.send('roots/list', undefined, undefined, via);
    const second = table.send('elicitation/create', { message: 'name?' }, undefined, via);
    assert.equal(table.size, 2);
    let made = 0;
    const reason = new Error('the session closed');
    table.rejectAll(() => {
      made++;
      return reason;
    });
    await assert.rejects(first, (error) => error === reason);
    await assert.rejects(second, (error) => error === reason);
    assert.equal(made, 1);
    assert.equal(table.size, 0);
  });

  it('makes no reason when nothing waits', () => {
    const table = new ClientRequestTable();
    table.rejectAll(() => assert.fail('no reason is needed with nothing pending'));
  });
});
