/**
 * A stdio server whose one tool answers a text of `kib` KiB made of its own `seed`, so that every
 * answer differs from every other in its every line: a test reading many of them at once can tell
 * an answer written into memory that another answer still needed.
 */
import { McpServer } from '../../lib/index.js';

/** The text the tool answers for `seed` and `kib`: `seed:` lines, cut to `kib` KiB. */
export function numberedText(seed: number, kib: number): string {
  const line = `answer ${seed}: ${'0123456789'.repeat(3)} ${seed}\n`;
  return line.repeat(Math.ceil((kib * 1024) / line.length)).slice(0, kib * 1024);
}

if (process.argv[2] === '--stdio') {
  await new McpServer({ name: 'numbered-answers', version: '1' })
    .tool({
      name: 'numbered',
      description: 'Answers `kib` KiB of text made of `seed`',
      inputSchema: {
        type: 'object',
        properties: { seed: { type: 'integer' }, kib: { type: 'integer', minimum: 1 } },
        required: ['seed', 'kib'],
      } as const,
      handler: ({ seed, kib }) => numberedText(seed, kib),
    })
    .listen({ stdio: true, handleSignals: false });
}
