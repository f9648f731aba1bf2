/**
 * Faults over Streamable HTTP against the demo as a real process: graceful shutdown on SIGTERM
 * (new requests get 503, a running call still gets its answer, exit 0), a flood of concurrent
 * calls with cancels (each POST answered at most once, on its own stream, none lost), and a slow
 * reader that pipelines requests without reading a byte of the answers, which must not grow the
 * server's memory without bound nor stall other clients.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const DEMO = fileURLToPath(new URL('../../examples/demo-server.js', import.meta.url));
const VERSION = '2025-06-18';

interface Demo {
  child: ChildProcess;
  url: URL;
}

async function startDemo(): Promise<Demo> {
  const child = spawn(process.execPath, [DEMO, '--http', '0', '--threads', '2'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    output += chunk;
  });
  const until = Date.now() + 10_000;
  while (!/Streamable HTTP at (\S+)/.test(output)) {
    if (Date.now() > until || child.exitCode !== null) throw new Error(`the demo did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { child, url: new URL(/Streamable HTTP at (\S+)/.exec(output)![1]!) };
}

/** POSTs one message; returns the HTTP status and the JSON-RPC messages of a JSON or SSE answer. */
async function post(
  demo: Demo,
  body: unknown,
  session?: string,
): Promise<{ status: number; session: string | null; messages: Array<Record<string, unknown>> }> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  if (session) {
    headers['mcp-session-id'] = session;
    headers['mcp-protocol-version'] = VERSION;
  }
  const response = await fetch(demo.url, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  const messages = type.startsWith('text/event-stream')
    ? text
        .split('\n')
        .filter((line) => line.startsWith('data:') && line.length > 6)
        .map((line) => JSON.parse(line.slice(5)) as Record<string, unknown>)
    : text
      ? [JSON.parse(text) as Record<string, unknown>]
      : [];
  return { status: response.status, session: response.headers.get('mcp-session-id'), messages };
}

async function initialize(demo: Demo): Promise<string> {
  const answer = await post(demo, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'faults', version: '0' } },
  });
  assert.equal(answer.status, 200);
  const session = answer.session!;
  await post(demo, { jsonrpc: '2.0', method: 'notifications/initialized' }, session);
  return session;
}

const call = (id: number, name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

function residentMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  return kb / 1024;
}

describe('Streamable HTTP under faults (demo process)', () => {
  test('SIGTERM: new requests get 503, the running call is answered, exit 0', async () => {
    const demo = await startDemo();
    try {
      const session = await initialize(demo);
      const running = post(demo, call(1, 'wait', { ms: 800 }), session);
      await new Promise((resolve) => setTimeout(resolve, 150));
      demo.child.kill('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 150));
      const refused = await post(demo, call(2, 'echo', { text: 'too late' }), session);
      assert.equal(refused.status, 503);
      assert.equal((refused.messages[0]?.error as { code?: number } | undefined)?.code, -32011);
      const answer = await running;
      const result = answer.messages.find((message) => message.id === 1);
      assert.deepEqual(result?.result, { content: [{ type: 'text', text: 'waited 800 ms' }] });
      const [code] = await once(demo.child, 'exit');
      assert.equal(code, 0);
    } finally {
      demo.child.kill('SIGKILL');
    }
  });

  test('500 concurrent mixed calls, 10% cancelled: each POST gets at most one answer, none lost', async (t) => {
    const demo = await startDemo();
    try {
      const session = await initialize(demo);
      const CALLS = 500;
      const cancelled = new Set<number>();
      const posts: Array<Promise<Awaited<ReturnType<typeof post>>>> = [];
      for (let i = 0; i < CALLS; i++) {
        const id = 1_000 + i;
        const kind = i % 4;
        const body =
          kind === 0
            ? call(id, 'echo', { text: `http ${i}` })
            : kind === 1
              ? call(id, 'wait', { ms: 50 + (i % 7) * 40 })
              : kind === 2
                ? call(id, 'fib', { n: 15 + (i % 8) })
                : call(id, 'wait', { ms: 400 });
        if (i % 10 === 3) cancelled.add(id);
        posts.push(post(demo, body, session));
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
      await Promise.all(
        [...cancelled].map((requestId) =>
          post(demo, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId } }, session),
        ),
      );
      const answers = await Promise.all(posts);
      let results = 0;
      let silent = 0;
      answers.forEach((answer, index) => {
        const id = 1_000 + index;
        assert.equal(answer.status, 200, `POST ${id} got HTTP ${answer.status}`);
        const responses = answer.messages.filter((message) => 'id' in message && !('method' in message));
        assert.ok(responses.length <= 1, `id ${id} answered ${responses.length} times`);
        for (const response of responses) assert.equal(response.id, id, 'an answer on the wrong stream');
        if (responses.length === 0) {
          assert.ok(cancelled.has(id), `id ${id} was lost`);
          silent++;
        } else results++;
      });
      t.diagnostic(`${results} answered, ${silent} cancelled without an answer`);
      const ping = await post(demo, { jsonrpc: '2.0', id: 9, method: 'ping' }, session);
      assert.deepEqual(ping.messages[0]?.result, {});
    } finally {
      demo.child.kill('SIGKILL');
    }
  });

  test('a client that pipelines requests and never reads does not grow memory or stall others', async (t) => {
    const demo = await startDemo();
    try {
      const session = await initialize(demo);
      await post(demo, call(1, 'echo', { text: 'warm' }), session);
      const before = residentMb(demo.child.pid!);
      const socket = connect(Number(demo.url.port), demo.url.hostname);
      await once(socket, 'connect');
      socket.pause(); // never read: the server's answers pile up on its side, if anywhere
      const text = 'z'.repeat(256 * 1024);
      const REQUESTS = 400; // 100 MiB of answers if the server buffered them all
      for (let i = 0; i < REQUESTS; i++) {
        const body = JSON.stringify(call(100 + i, 'echo', { text }));
        socket.write(
          `POST ${demo.url.pathname} HTTP/1.1\r\nHost: ${demo.url.host}\r\n` +
            'Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n' +
            `Mcp-Session-Id: ${session}\r\nMcp-Protocol-Version: ${VERSION}\r\n` +
            `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const during = residentMb(demo.child.pid!);
      const other = await post(demo, call(9, 'echo', { text: 'other client' }), session);
      assert.equal(other.status, 200, 'another client is still served');
      t.diagnostic(
        `resident memory ${before.toFixed(0)} MB before, ${during.toFixed(0)} MB with the slow reader`,
      );
      assert.ok(during - before < 80, `memory grew by ${(during - before).toFixed(0)} MB`);
      socket.destroy();
    } finally {
      demo.child.kill('SIGKILL');
    }
  });
});
