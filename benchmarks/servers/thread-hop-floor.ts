#!/usr/bin/env node
/**
 * The floor for dispatch-overhead: the least any server can pay to run a tool on another thread.
 *
 * No framework, no validation, no pool library: newline-delimited JSON-RPC on stdio, `noop`
 * answered on the spot and `noop_blocking` answered after one message round trip to a single
 * worker_threads Worker. Whatever this server's blocking calls add over its inline ones is the price
 * of two thread wake-ups on this machine, in this run; a real server cannot go below it, so the
 * report prints it next to weft's overhead. It speaks only what the load client sends.
 */
import { createInterface } from 'node:readline';
import { Worker } from 'node:worker_threads';
import { readPeerOptions, UNSUPPORTED_TRANSPORT_EXIT } from '../peers/peer-options.js';

const options = readPeerOptions();
if (!options.stdio) {
  process.stderr.write('thread-hop-floor serves stdio only\n');
  process.exit(UNSUPPORTED_TRANSPORT_EXIT);
}

interface Request {
  id?: number | string;
  method?: string;
  params?: { name?: string; protocolVersion?: string };
}

const worker = new Worker(
  "require('node:worker_threads').parentPort.on('message', (id) => require('node:worker_threads').parentPort.postMessage(id));",
  { eval: true },
);
const NOOP_RESULT = { content: [{ type: 'text', text: 'ok' }] };
const send = (id: Request['id'], result: unknown) =>
  process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id, result })}\n`);

worker.on('message', (id: Request['id']) => send(id, NOOP_RESULT));

createInterface({ input: process.stdin }).on('line', (line) => {
  const request = JSON.parse(line) as Request;
  if (request.id === undefined) return; // a notification
  switch (request.method) {
    case 'initialize':
      send(request.id, {
        protocolVersion: request.params?.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: 'thread-hop-floor', version: '0.0.0' },
      });
      return;
    case 'tools/call':
      if (request.params?.name === 'noop_blocking') worker.postMessage(request.id);
      else send(request.id, NOOP_RESULT);
      return;
    default:
      send(request.id, {});
  }
});
process.stdin.on('end', () => process.exit(0));
