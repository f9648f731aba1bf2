/**
 * `whenGone` (lib/transports/request-gone.ts) on a real Node HTTP server: it hears a client leave
 * even while the request's response is queued behind an earlier answer on a kept-alive connection
 * (Node emits nothing on such a response), calls back once, and a connection serving request after
 * request keeps no listener of finished ones, and one that pipelines many adds one listener, not one
 * per request. Under an in-process driver whose request carries a stand-in socket (no event
 * emitter), the response's close is still heard.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { test } from 'node:test';
import { whenGone } from '../../lib/transports/request-gone.js';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

async function serve(handler: Handler) {
  const server = createServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  const client = connect(port, '127.0.0.1');
  await once(client, 'connect');
  return { server, client };
}

const get = (path: string) => `GET ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`;
const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('hears the client leave while its response is queued behind another', async () => {
  const gone: string[] = [];
  const { server, client } = await serve((request, response) => {
    whenGone(request, response, () => gone.push(request.url!));
    // The first answer takes a while, so the second request's response waits, socketless.
  });
  client.write(get('/first') + get('/second'));
  await settle(100);
  client.destroy();
  await settle(100);
  server.close();
  assert.deepEqual(gone.sort(), ['/first', '/second']);
});

test('calls back once per request, and a kept-alive connection keeps no listener of finished ones', async () => {
  const calls = new Map<string, number>();
  const listeners: number[] = [];
  const { server, client } = await serve((request, response) => {
    listeners.push(request.socket.listenerCount('close'));
    // Never stopped by hand: the response's own close (it is done) is what ends the watch here.
    whenGone(request, response, () => calls.set(request.url!, (calls.get(request.url!) ?? 0) + 1));
    response.end('ok');
  });
  let answers = 0;
  client.on('data', (chunk: Buffer) => {
    answers += chunk.toString('latin1').split('HTTP/1.1 200').length - 1;
  });
  for (let index = 0; index < 20; index++) {
    const before = answers;
    client.write(get(`/r${index}`));
    while (answers === before) await settle(5);
    await settle(5);
  }
  client.destroy();
  await settle(50);
  server.close();
  assert.equal(listeners.length, 20);
  // The first request finds Node's listeners; from then on, one more of weft's for the connection.
  assert.equal(
    new Set(listeners.slice(1)).size,
    1,
    `close listeners on the connection: ${listeners.join(' ')}`,
  );
  assert.ok(listeners[1]! <= listeners[0]! + 1, `close listeners on the connection: ${listeners.join(' ')}`);
  assert.equal(calls.size, 20);
  assert.ok(
    [...calls.values()].every((count) => count === 1),
    JSON.stringify([...calls]),
  );
});

test('adds one close listener to a connection however many requests it pipelines', async () => {
  const listeners: number[] = [];
  const gone: string[] = [];
  const { server, client } = await serve((request, response) => {
    whenGone(request, response, () => gone.push(request.url!));
    listeners.push(request.socket.listenerCount('close'));
    // No answer: every request stays open, so each one's watch is still on.
  });
  client.write(Array.from({ length: 30 }, (_, index) => get(`/p${index}`)).join(''));
  while (listeners.length < 30) await settle(5);
  client.destroy();
  await settle(50);
  server.close();
  assert.equal(new Set(listeners).size, 1, `close listeners on the connection: ${listeners.join(' ')}`);
  assert.equal(gone.length, 30, 'every request heard its client leave');
});

test('under an in-process driver whose socket is a stand-in, hears the response close', async () => {
  const { EventEmitter } = await import('node:events');
  const response = new EventEmitter() as unknown as ServerResponse;
  const request = { socket: { remoteAddress: '127.0.0.1', remotePort: 1 } } as unknown as IncomingMessage;
  let gone = 0;
  whenGone(request, response, () => gone++);
  (response as unknown as InstanceType<typeof EventEmitter>).emit('close');
  (response as unknown as InstanceType<typeof EventEmitter>).emit('close');
  assert.equal(gone, 1);
});
