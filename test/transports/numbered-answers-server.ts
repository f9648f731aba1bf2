/**
 * A server whose one tool answers a text of `kib` KiB made of its own `seed`, so that every answer
 * differs from every other in its every line: a test reading many of them at once can tell an
 * answer written into memory that another answer still needed. With `delayMs` the tool answers
 * after that long, reporting progress first (an HTTP POST then hears its answer on an SSE stream,
 * not as JSON; a 2026-07-28 one when its call sent a progress token).
 *
 * `--stdio` serves stdin/stdout; `--net` serves Streamable HTTP and WebSocket on free ports and
 * prints them as one JSON line (`{"http":…,"ws":…}`).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { McpServer } from '../../lib/index.js';

/** The text the tool answers for `seed` and `kib`: `seed:` lines, cut to `kib` KiB. */
export function numberedText(seed: number, kib: number): string {
  const line = `answer ${seed}: ${'0123456789'.repeat(3)} ${seed}\n`;
  return line.repeat(Math.ceil((kib * 1024) / line.length)).slice(0, kib * 1024);
}

const mode = process.argv[2];
if (mode === '--stdio' || mode === '--net') {
  const server = new McpServer({ name: 'numbered-answers', version: '1' }).tool({
    name: 'numbered',
    description: 'Answers `kib` KiB of text made of `seed`, after `delayMs` when given',
    inputSchema: {
      type: 'object',
      properties: {
        seed: { type: 'integer' },
        kib: { type: 'integer', minimum: 1 },
        delayMs: { type: 'integer', minimum: 1 },
      },
      required: ['seed', 'kib'],
    } as const,
    handler: async ({ seed, kib, delayMs }, ctx) => {
      if (delayMs !== undefined) {
        ctx.progress(0, 1); // heard only when the call asked for progress: a 2026-07-28 POST then streams
        await sleep(delayMs);
      }
      return numberedText(seed, kib);
    },
  });
  if (mode === '--stdio') await server.listen({ stdio: true, handleSignals: false });
  else {
    await server.listen({ http: { port: 0 }, ws: { port: 0 }, handleSignals: false });
    const { http, ws } = server.addresses;
    process.stdout.write(`${JSON.stringify({ http: http?.port, ws: ws?.port })}\n`);
  }
}
