/**
 * Item 4 of the hardening issue: a WebSocket peer that stops reading is dropped once its unread
 * output has stayed above `maxBufferedBytes` for `maxStalledMs` (close 1008), and its calls are
 * cancelled; and `maxConnections` caps the open sockets, an upgrade beyond refused with 503. A paused
 * reader used to be skipped by the heartbeat and kept forever, and connections had no cap.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WebSocket } from 'ws';
import { McpServer } from '../../lib/index.js';
import { openSocket } from '../support/websocket-upgrade.js';

const open = (url: string) => openSocket(url, { handshakeTimeout: 10_000 });

const call = (id: number, name: string) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });

const until = async (done: () => boolean, withinMs: number) => {
  const deadline = Date.now() + withinMs;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  return done();
};

describe('security: WebSocket limits', () => {
  it('a reader stalled past maxStalledMs is closed and its calls cancelled', async () => {
    let cancelled = 0;
    const server = new McpServer({ name: 'ws-stalled', version: '1' })
      .tool({
        name: 'big',
        inputSchema: { type: 'object', properties: {} },
        handler: () => 'x'.repeat(256 * 1024),
      })
      .tool({
        name: 'wait',
        description: 'Waits until cancelled',
        inputSchema: { type: 'object', properties: {} },
        handler: (_args, ctx) =>
          new Promise((resolve) =>
            ctx.signal.addEventListener('abort', () => {
              cancelled++;
              resolve('cancelled');
            }),
          ),
      });
    await server.listen({
      ws: { port: 0, maxBufferedBytes: 256 * 1024, maxStalledMs: 400 },
      handleSignals: false,
    });
    try {
      const socket = await open(`ws://127.0.0.1:${server.addresses.ws!.port}`);
      let closedWith: number | undefined;
      socket.once('close', (code) => {
        closedWith = code;
      });
      const raw = (socket as unknown as { _socket: { pause(): void; resume(): void } })._socket;
      socket.send(call(1, 'wait'));
      await new Promise((resolve) => setTimeout(resolve, 100));
      raw.pause();
      for (let id = 2; id <= 60; id++) {
        socket.send(call(id, 'big'));
        if (id % 4 === 0) await new Promise((resolve) => setTimeout(resolve, 25));
      }
      assert.ok(await until(() => cancelled === 1, 10_000), 'the waiting call was cancelled');
      raw.resume();
      assert.ok(await until(() => closedWith !== undefined, 10_000), 'the socket was closed');
      assert.ok(closedWith === 1008 || closedWith === 1006, `closed with ${closedWith}`);
    } finally {
      await server.close();
    }
  });

  it('a reader paused for less than maxStalledMs is kept and catches up', async () => {
    const server = new McpServer({ name: 'ws-brief', version: '1' }).tool({
      name: 'big',
      inputSchema: { type: 'object', properties: {} },
      handler: () => 'x'.repeat(256 * 1024),
    });
    await server.listen({
      ws: { port: 0, maxBufferedBytes: 256 * 1024, maxStalledMs: 20_000 },
      handleSignals: false,
    });
    try {
      const socket = await open(`ws://127.0.0.1:${server.addresses.ws!.port}`);
      let answers = 0;
      socket.on('message', () => answers++);
      const raw = (socket as unknown as { _socket: { pause(): void; resume(): void } })._socket;
      raw.pause();
      for (let id = 1; id <= 40; id++) {
        socket.send(call(id, 'big'));
        if (id % 4 === 0) await new Promise((resolve) => setTimeout(resolve, 25));
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
      raw.resume();
      assert.ok(await until(() => answers === 40, 10_000), `${answers} of 40 answers`);
      assert.equal(socket.readyState, WebSocket.OPEN);
      socket.close();
    } finally {
      await server.close();
    }
  });

  it('maxConnections refuses one more upgrade with 503, and a freed slot is usable again', async () => {
    const server = new McpServer({ name: 'ws-cap', version: '1' });
    await server.listen({ ws: { port: 0, maxConnections: 2 }, handleSignals: false });
    try {
      const url = `ws://127.0.0.1:${server.addresses.ws!.port}`;
      const first = await open(url);
      const second = await open(url);
      await assert.rejects(open(url), /refused with 503/);
      const closed = new Promise((resolve) => first.once('close', resolve));
      first.close();
      await closed;
      await new Promise((resolve) => setTimeout(resolve, 100));
      const third = await open(url);
      second.close();
      third.close();
    } finally {
      await server.close();
    }
  });
});
