/**
 * `hash_chain {text, rounds}`: iterated SHA-256, the shape of key stretching and proof-of-work.
 * Reports progress and honours cancellation through ctx.checkpoint().
 */
import { createHash } from 'node:crypto';
import { defineTool } from '../../lib/tool.js';

export default defineTool({
  name: 'hash_chain',
  description: 'Hashes text with SHA-256, feeding each digest back in, `rounds` times.',
  inputSchema: {
    type: 'object',
    properties: {
      text: { type: 'string', maxLength: 65536 },
      rounds: { type: 'integer', minimum: 1, maximum: 50_000_000, default: 100_000 },
    },
    required: ['text'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  blocking: true,
  module: import.meta.url,
  handler: ({ text, rounds = 100_000 }, ctx) => {
    let digest: Buffer = Buffer.from(text, 'utf8');
    for (let round = 1; round <= rounds; round++) {
      digest = createHash('sha256').update(digest).digest();
      if (round % 10_000 === 0) {
        ctx.checkpoint();
        ctx.progress(round, rounds);
      }
    }
    return digest.toString('hex');
  },
});
