/**
 * One caller cannot take every legacy session. A `ping` marks a session used, so unused-session
 * eviction alone let one caller (one principal, or any local process without auth) fill
 * `maxSessions` and every other legacy client got 503 for the idle timeout. Now each caller (its
 * principal, else its peer address) holds at most `maxSessionsPerCaller`: its least recently used
 * idle session makes room, and only when all of them are busy is its initialize refused (429).
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { describe, it } from 'node:test';
import { McpServer } from '../../lib/index.js';
import type { StreamableHttpOptions } from '../../lib/transports/streamable-http.js';
import { heapUsedAfterGc, MB } from '../support/heap.js';

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'flood', version: '1' } },
});
const PING = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });

interface Answer {
  status: number;
  session: string | undefined;
  body: string;
}

/** One POST from `localAddress` (another loopback address is another caller without auth). */
function post(url: string, body: string, session?: string, localAddress = '127.0.0.1'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...HEADERS };
    if (session) Object.assign(headers, { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' });
    const request = httpRequest(url, { method: 'POST', headers, localAddress, agent: false }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('end', () => {
        const id = response.headers['mcp-session-id'];
        resolve({
          status: response.statusCode ?? 0,
          session: typeof id === 'string' ? id : undefined,
          body: text,
        });
      });
    });
    request.on('error', reject);
    request.end(body);
  });
}

async function serving(http: StreamableHttpOptions, run: (url: string, server: McpServer) => Promise<void>) {
  const server = new McpServer({ name: 'session-bounds', version: '1' });
  await server.listen({ http: { port: 0, ...http }, handleSignals: false });
  try {
    await run(`http://127.0.0.1:${server.addresses.http!.port}/mcp`, server);
  } finally {
    await server.close();
  }
}

describe('security: legacy sessions per caller', () => {
  it('10,000 used sessions by one caller: its own oldest make room, the heap stays bounded, others are served', async () => {
    await serving(
      { maxSessions: 1_000, maxSessionsPerCaller: 50, unusedSessionMs: 600_000 },
      async (url, server) => {
        const other = await post(url, INITIALIZE, undefined, '127.0.0.2');
        assert.equal(other.status, 200);
        assert.equal((await post(url, PING, other.session, '127.0.0.2')).status, 200);
        const before = await heapUsedAfterGc();
        let opened = 0;
        const flood = async () => {
          while (opened < 10_000) {
            opened++;
            const made = await post(url, INITIALIZE);
            assert.equal(made.status, 200, `initialize ${opened}: ${made.body}`);
            assert.equal((await post(url, PING, made.session)).status, 200);
          }
        };
        await Promise.all([flood(), flood(), flood(), flood()]);
        const { sessions } = server.stats.tables;
        assert.ok(sessions <= 51, `${sessions} sessions open (50 for the flooding caller, 1 other)`);
        const grown = (await heapUsedAfterGc()) - before;
        assert.ok(grown < 16 * MB, `heap grew ${(grown / MB).toFixed(1)} MB over 10,000 sessions`);
        assert.equal(
          (await post(url, PING, other.session, '127.0.0.2')).status,
          200,
          'the other session is kept',
        );
        assert.equal(
          (await post(url, INITIALIZE, undefined, '127.0.0.3')).status,
          200,
          'a new client is served',
        );
      },
    );
  });

  it('when all of a caller’s sessions are busy, its next initialize is refused with 429, saying why', async () => {
    await serving({ maxSessionsPerCaller: 2 }, async (url) => {
      const streams: AbortController[] = [];
      try {
        for (let i = 0; i < 2; i++) {
          const made = await post(url, INITIALIZE);
          // An open GET stream keeps a session busy: it is not evicted under a client that uses it.
          const controller = new AbortController();
          streams.push(controller);
          const get = await fetch(url, {
            headers: {
              accept: 'text/event-stream',
              'mcp-session-id': made.session!,
              'mcp-protocol-version': '2025-11-25',
            },
            signal: controller.signal,
          });
          assert.equal(get.status, 200);
        }
        const refused = await post(url, INITIALIZE);
        assert.equal(refused.status, 429);
        assert.match(JSON.parse(refused.body).error.message, /maxSessionsPerCaller/);
        assert.equal(
          (await post(url, INITIALIZE, undefined, '127.0.0.2')).status,
          200,
          'another caller is not',
        );
      } finally {
        for (const controller of streams) controller.abort();
      }
    });
  });
});
