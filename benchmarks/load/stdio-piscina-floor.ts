#!/usr/bin/env node
/**
 * The stdio floor for blocking-throughput: the least a server can do per trivial pool call over
 * stdio. It reads newline-delimited JSON-RPC, answers `initialize`, runs each `tools/call` as one
 * noop Piscina task (the peers' worker, peers/piscina-tasks.ts) with the same options as the
 * SDK + Piscina peer, and writes the replies made in one turn of the event loop in one write. No
 * schema, no validation, no sessions, no deadline, no cancel, no admission of its own: every call
 * goes straight into Piscina's queue.
 *
 * The bare Piscina floor (servers/bare-piscina-floor.ts) prices the hand-off to a thread; this one
 * adds what stdio and JSON cost on this machine, in this run, so the scenario can say how much of a
 * server's CPU per call is any stdio server's and how much is its own. Not an MCP server: it does
 * nothing else right.
 */
import { readPeerOptions } from '../peers/peer-options.js';
import { NOOP_TASK, peerPool } from '../peers/peer-pool.js';

const pool = peerPool(readPeerOptions().threads);

let outbox: string[] = [];
const flush = () => {
  process.stdout.write(`${outbox.join('\n')}\n`);
  outbox = [];
};
const send = (message: object) => {
  if (outbox.push(JSON.stringify(message)) === 1) setImmediate(flush);
};

interface Request {
  id?: string | number;
  method?: string;
  params?: { protocolVersion?: string };
}

function receive(request: Request): void {
  const { id, method } = request;
  if (id === undefined) return; // notifications/initialized
  if (method === 'tools/call') {
    pool
      .run(NOOP_TASK)
      .then((text: string) => send({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } }));
  } else if (method === 'initialize') {
    send({
      jsonrpc: '2.0',
      id,
      result: {
        protocolVersion: request.params?.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: 'stdio-piscina-floor', version: '0.0.0' },
      },
    });
  } else {
    send({ jsonrpc: '2.0', id, result: {} });
  }
}

let partial = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
  const lines = (partial + chunk).split('\n');
  partial = lines.pop() ?? '';
  for (const line of lines) if (line !== '') receive(JSON.parse(line) as Request);
});
process.stdin.on('end', () => void pool.destroy());
