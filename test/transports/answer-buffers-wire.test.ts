/**
 * Large answers' memory is reused (answer-buffers.ts), and never while a socket still sends it: a
 * real server in its own process answers many distinct answers of 64 KiB to 1 MiB at once, on every
 * way an answer leaves (stdio to a pipe, legacy JSON and SSE, 2026-07-28 JSON and SSE, WebSocket),
 * to readers that pause so that answers queue in the server (HTTP calls pipelined on one
 * connection, WebSocket calls on one socket); each answer must arrive exactly as its tool wrote it.
 * Each case fails when a write gives its Buffer back before its callback (legacy SSE when its
 * replay store does not hold the frame either; both tried).
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import { envelope, standardHeaders } from './modern-http-peer.js';
import { numberedText } from './numbered-answers-server.js';

const KIB = 1024;
const SERVER = fileURLToPath(new URL('./numbered-answers-server.js', import.meta.url));
const SIZES = [64, 100, 130, 250, 600, 1000];
const CALLS = 36;
/** A reader stops for PAUSE_MS after every READ_BETWEEN_PAUSES bytes it took. */
const READ_BETWEEN_PAUSES = 384 * KIB;
const PAUSE_MS = 25;
/** A reader reads nothing for this long after it connected. */
const FIRST_READ_MS = 60;

/** One call of the tool: its JSON-RPC id, its seed and its size. */
interface NumberedCall {
  id: number;
  seed: number;
  kib: number;
}

/** What a legacy client sends on one connection to make `calls`: initialize, initialized, the calls. */
function legacySessionMessages(calls: readonly NumberedCall[]): unknown[] {
  return [
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    ...calls.map(({ id, seed, kib }) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'numbered', arguments: { seed, kib } },
    })),
  ];
}

/** A tools/call answer as read off the wire. */
interface WireAnswer {
  id?: unknown;
  result?: { content?: { text?: string }[] };
}

/** The answer's text in a tools/call result read off the wire. */
function textOf(message: WireAnswer): string | undefined {
  return message.result?.content?.[0]?.text;
}

/**
 * A reader that falls behind now and then: told each chunk's size, it stops `stream` for `ms`
 * after every `every` bytes, so that answers queue in the server.
 */
function pauseEvery(
  stream: { pause(): void; resume(): void },
  every: number,
  ms: number,
): (bytes: number) => void {
  let sincePause = 0;
  return (bytes) => {
    sincePause += bytes;
    if (sincePause < every) return;
    sincePause = 0;
    stream.pause();
    setTimeout(() => stream.resume(), ms);
  };
}

/** Every call's text (in the order of `calls`) arrived whole, exactly as the tool wrote it. */
function assertArrivedWhole(calls: readonly NumberedCall[], texts: readonly (string | undefined)[]): void {
  calls.forEach(({ id, seed, kib }, index) => {
    const text = texts[index];
    assert.equal(text?.length, kib * KIB, `answer ${id}: its length`);
    assert.ok(text === numberedText(seed, kib), `answer ${id} arrived as its tool wrote it`);
  });
}

const callsFrom = (firstSeed: number, count = CALLS): NumberedCall[] =>
  Array.from({ length: count }, (_, index) => ({
    id: index + 1,
    seed: firstSeed + index,
    kib: SIZES[index % SIZES.length]!,
  }));

/**
 * Everything a stream carries until it ends, read by a reader that waits FIRST_READ_MS before it
 * reads at all (so that the server cannot hand a large answer on at once and has to keep it
 * queued), then pauses now and then.
 */
function readPausing(stream: Readable): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const pieces: Buffer[] = [];
    const took = pauseEvery(stream, READ_BETWEEN_PAUSES, PAUSE_MS);
    stream.pause();
    setTimeout(() => stream.resume(), FIRST_READ_MS);
    stream.on('data', (chunk: Buffer) => {
      pieces.push(chunk);
      took(chunk.length);
    });
    stream.once('end', () => resolve(Buffer.concat(pieces)));
    stream.once('error', reject);
  });
}

/** The JSON-RPC answer in a POST's reply body: JSON, or the `data:` of an SSE message event. */
function answerIn(contentType: string, body: string, id: number): WireAnswer {
  if (contentType.startsWith('application/json')) return JSON.parse(body);
  const answer = sseMessages(body).find((message) => message.id === id);
  if (answer === undefined)
    throw new Error(`no answer to ${id} in a ${contentType} reply of ${body.length} characters`);
  return answer;
}

/** The messages of an SSE body, in order. */
function sseMessages(body: string): WireAnswer[] {
  const messages: WireAnswer[] = [];
  for (const event of body.split('\n\n')) {
    const data = event
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => line.slice('data: '.length))
      .join('\n');
    if (data === '') continue;
    let message: WireAnswer;
    try {
      message = JSON.parse(data);
    } catch {
      throw new Error(`an event that is not JSON (a frame overwritten?): ${data.slice(0, 120)}`);
    }
    messages.push(message);
  }
  return messages;
}

/** One HTTP/1.1 reply as read off the connection. */
interface RawReply {
  type: string;
  session: string | undefined;
  body: string;
}

/**
 * POSTs `bodies` to /mcp pipelined on one connection (each sent before any reply came) and reads
 * the replies in order, pausing. The server answers a connection's requests one after the other,
 * so every reply but the first waits in the server, and a large one stays queued there: what makes
 * a Buffer given back too early show (a loopback socket's buffers take one reply of 1 MiB whole).
 */
function postPipelined(
  port: number,
  bodies: readonly unknown[],
  headers: Record<string, string>,
): Promise<RawReply[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const head = Object.entries({ 'content-type': 'application/json', ...headers })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    bodies.forEach((body, index) => {
      const text = Buffer.from(JSON.stringify(body));
      const last = index === bodies.length - 1 ? 'connection: close\r\n' : '';
      socket.write(
        `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: ${text.length}\r\n${head}${last}\r\n`,
      );
      socket.write(text);
    });
    readPausing(socket).then((bytes) => {
      try {
        resolve(parseReplies(bytes, bodies.length));
      } catch (error) {
        reject(error);
      }
    }, reject);
  });
}

/** `count` HTTP/1.1 replies one after the other in `bytes` (bodies by length or chunked). */
function parseReplies(bytes: Buffer, count: number): RawReply[] {
  const replies: RawReply[] = [];
  let at = 0;
  while (replies.length < count) {
    const headEnd = bytes.indexOf('\r\n\r\n', at);
    if (headEnd === -1) throw new Error(`the connection ended after ${replies.length} of ${count} replies`);
    const lines = bytes.subarray(at, headEnd).toString().split('\r\n');
    const fields = new Map(
      lines.slice(1).map((line) => {
        const colon = line.indexOf(':');
        return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()] as const;
      }),
    );
    at = headEnd + 4;
    const pieces: Buffer[] = [];
    if (fields.get('transfer-encoding') === 'chunked') {
      for (;;) {
        const sizeEnd = bytes.indexOf('\r\n', at);
        const size = Number.parseInt(bytes.subarray(at, sizeEnd).toString(), 16);
        at = sizeEnd + 2;
        if (size === 0) break;
        pieces.push(bytes.subarray(at, at + size));
        at += size + 2;
      }
      at += 2;
    } else {
      const length = Number(fields.get('content-length') ?? 0);
      pieces.push(bytes.subarray(at, at + length));
      at += length;
    }
    replies.push({
      type: fields.get('content-type') ?? '',
      session: fields.get('mcp-session-id'),
      body: Buffer.concat(pieces).toString(),
    });
  }
  return replies;
}

describe('HTTP and WebSocket answers written into reused memory', () => {
  let child: ChildProcess;
  let ports: { http: number; ws: number };

  before(async () => {
    child = spawn(process.execPath, [SERVER, '--net'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
    ports = JSON.parse(line);
  });
  after(() => {
    child.kill();
  });

  /** The calls pipelined on one connection, so that replies wait in the server; their texts in order. */
  async function callPipelined(
    calls: readonly NumberedCall[],
    headersOf: (params: Record<string, unknown>) => Record<string, string>,
    paramsOf: (call: NumberedCall) => Record<string, unknown>,
    replyType: string,
  ): Promise<(string | undefined)[]> {
    const bodies = calls.map((call) => ({
      jsonrpc: '2.0',
      id: call.id,
      method: 'tools/call',
      params: paramsOf(call),
    }));
    // Every call names the same tool, so one set of headers (Mcp-Name included) fits them all.
    const replies = await postPipelined(ports.http, bodies, headersOf(bodies[0]!.params));
    return replies.map((reply, index) => {
      const { id } = calls[index]!;
      assert.ok(reply.type.startsWith(replyType), `answer ${id} came as ${reply.type}`);
      return textOf(answerIn(reply.type, reply.body, id));
    });
  }

  for (const [reply, accept, delayMs] of [
    ['JSON', 'application/json', undefined],
    ['SSE', 'application/json, text/event-stream', 20],
  ] as const) {
    const replyType = delayMs === undefined ? 'application/json' : 'text/event-stream';
    const argumentsOf = ({ seed, kib }: NumberedCall) => ({ seed, kib, ...(delayMs ? { delayMs } : {}) });

    it(`legacy ${reply} replies arrive each as its tool wrote it, ${CALLS} at once`, {
      timeout: 60_000,
    }, async () => {
      const [initialize, initialized] = legacySessionMessages([]);
      const [started] = await postPipelined(ports.http, [initialize], {
        accept: 'application/json, text/event-stream',
      });
      assert.ok(started?.session, 'the server opened a session');
      const headers = { accept, 'mcp-session-id': started.session, 'mcp-protocol-version': '2025-06-18' };
      await postPipelined(ports.http, [initialized], headers);
      const calls = callsFrom(delayMs === undefined ? 2000 : 3000);
      const texts = await callPipelined(
        calls,
        () => headers,
        (call) => ({ name: 'numbered', arguments: argumentsOf(call) }),
        replyType,
      );
      assertArrivedWhole(calls, texts);
    });

    it(`2026-07-28 ${reply} replies arrive each as its tool wrote it, ${CALLS} at once`, {
      timeout: 60_000,
    }, async () => {
      const calls = callsFrom(delayMs === undefined ? 4000 : 5000);
      const texts = await callPipelined(
        calls,
        (params) => ({ accept, ...standardHeaders('tools/call', params) }),
        // A progress token makes a 2026-07-28 POST stream: the tool reports progress before its answer.
        (call) => ({
          name: 'numbered',
          arguments: argumentsOf(call),
          _meta: envelope(delayMs ? { progressToken: call.id } : {}),
        }),
        replyType,
      );
      assertArrivedWhole(calls, texts);
    });
  }

  it(`WebSocket answers arrive each as its tool wrote it, ${CALLS} at once`, {
    timeout: 60_000,
  }, async () => {
    const socket = new WebSocket(`ws://127.0.0.1:${ports.ws}`, 'mcp');
    try {
      await once(socket, 'open');
      const calls = callsFrom(6000);
      const texts = new Map<number, string | undefined>();
      const done = new Promise<void>((resolve, reject) => {
        const took = pauseEvery(socket, READ_BETWEEN_PAUSES, PAUSE_MS);
        socket.on('message', (data: Buffer) => {
          took(data.length);
          let message: WireAnswer;
          try {
            message = JSON.parse(data.toString());
          } catch {
            reject(
              new Error(`a message that is not JSON (an answer overwritten?): ${data.subarray(0, 120)}`),
            );
            return;
          }
          if (typeof message.id === 'number' && message.id > 0) texts.set(message.id, textOf(message));
          if (texts.size === calls.length) resolve();
        });
        socket.once('close', () => reject(new Error(`the socket closed after ${texts.size} answers`)));
      });
      for (const message of legacySessionMessages(calls)) socket.send(JSON.stringify(message));
      await done;
      assertArrivedWhole(
        calls,
        calls.map(({ id }) => texts.get(id)),
      );
    } finally {
      socket.close();
    }
  });
});

describe('stdio answers written into reused memory', () => {
  it('arrive each as its tool wrote it, 48 at once to a reader that pauses', {
    timeout: 60_000,
  }, async () => {
    const child = spawn(process.execPath, [SERVER, '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
    try {
      const calls = callsFrom(1000, 48);
      const answers = new Map<number, string | undefined>();
      const done = new Promise<void>((resolve, reject) => {
        let pieces: Buffer[] = [];
        // A reader that stops now and then, so that answers queue in the pipe and in stdout.
        const took = pauseEvery(child.stdout!, 2 * 1024 * KIB, 30);
        child.stdout!.on('data', (chunk: Buffer) => {
          took(chunk.length);
          let start = 0;
          for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
            pieces.push(chunk.subarray(start, end));
            const line = Buffer.concat(pieces).toString();
            pieces = [];
            let message: WireAnswer;
            try {
              message = JSON.parse(line);
            } catch {
              reject(new Error(`a line that is not JSON (an answer overwritten?): ${line.slice(0, 120)}`));
              return;
            }
            start = end + 1;
            if (typeof message.id === 'number' && message.id > 0) answers.set(message.id, textOf(message));
            if (answers.size === calls.length) resolve();
          }
          pieces.push(chunk.subarray(start));
        });
        child.stdout!.once('end', () => reject(new Error(`stdout ended after ${answers.size} answers`)));
      });
      for (const message of legacySessionMessages(calls)) child.stdin!.write(`${JSON.stringify(message)}\n`);
      await done;
      assertArrivedWhole(
        calls,
        calls.map(({ id }) => answers.get(id)),
      );
    } finally {
      child.kill();
    }
  });
});
