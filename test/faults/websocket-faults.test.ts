/**
 * A flood over WebSocket against the demo as a real process: 1,000 mixed calls (inline, pooled,
 * some past their deadline) with 10% cancelled, all on one socket. Every id is answered at most
 * once, every call not cancelled exactly once, and the socket still answers `ping` afterwards.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';

const DEMO = fileURLToPath(new URL('../../examples/demo-server.js', import.meta.url));

test('1,000 mixed calls over one WebSocket, 10% cancelled: none lost, none answered twice', async (t) => {
  const child = spawn(process.execPath, [DEMO, '--ws', '0', '--threads', '2', '--timeout-ms', '250'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  try {
    let output = '';
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      output += chunk;
    });
    const until = Date.now() + 10_000;
    while (!/WebSocket at (\S+)/.test(output) && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const url = /WebSocket at (\S+)/.exec(output)?.[1];
    assert.ok(url, `the demo did not start:\n${output}`);

    const socket = new WebSocket(url, 'mcp');
    await once(socket, 'open');
    const answers = new Map<number, number>();
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { id?: unknown; method?: string };
      if (typeof message.id === 'number' && message.method === undefined) {
        answers.set(message.id, (answers.get(message.id) ?? 0) + 1);
      }
    });
    const send = (message: unknown) => socket.send(JSON.stringify(message));
    send({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'faults', version: '0' },
      },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });

    const CALLS = 1_000;
    const cancelled = new Set<number>();
    for (let i = 1; i <= CALLS; i++) {
      const kind = i % 4;
      const params =
        kind === 0
          ? { name: 'echo', arguments: { text: `ws ${i}` } }
          : kind === 1
            ? { name: 'wait', arguments: { ms: (i * 37) % 400 } }
            : kind === 2
              ? { name: 'fib', arguments: { n: 10 + (i % 12) } }
              : { name: 'spin', arguments: { ms: (i * 13) % 300 } };
      send({ jsonrpc: '2.0', id: i, method: 'tools/call', params });
      if (i % 10 === 7) cancelled.add(i);
    }
    for (const requestId of cancelled) {
      send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId } });
    }
    const settled = () => {
      for (let i = 1; i <= CALLS; i++) if (!cancelled.has(i) && !answers.has(i)) return false;
      return true;
    };
    const deadline = Date.now() + 60_000;
    while (!settled() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    await new Promise((resolve) => setTimeout(resolve, 300)); // room for a wrongful late answer

    let silent = 0;
    for (let i = 1; i <= CALLS; i++) {
      const count = answers.get(i) ?? 0;
      assert.ok(count <= 1, `id ${i} answered ${count} times`);
      if (!cancelled.has(i)) assert.equal(count, 1, `id ${i} was lost`);
      if (count === 0) silent++;
    }
    t.diagnostic(`${CALLS - silent} answered, ${silent} cancelled without an answer`);
    send({ jsonrpc: '2.0', id: 99_999, method: 'ping' });
    const pingUntil = Date.now() + 5_000;
    while (!answers.has(99_999) && Date.now() < pingUntil)
      await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(answers.get(99_999), 1, 'ping answers after the flood');
    socket.close();
  } finally {
    child.kill('SIGKILL');
  }
});
