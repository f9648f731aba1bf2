/**
 * One tool, `rank`, defined twice: with zod and with the JSON Schema a person would write for the
 * same arguments. The equivalence tests (schema-equivalence.test.ts) hold the two to the same
 * published schema, the same verdict on any arguments and the same handler argument type. Both run
 * in the pool (blocking), so this module is what the workers import too.
 */
import { z } from 'zod';
import { defineTool } from '../../lib/tool.js';

/** Ranks the words by length (then alphabetically), keeping the first `top`. */
function rank(words: readonly string[], top: number, order: 'asc' | 'desc' | undefined): string[] {
  const sorted = [...words].sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
  if (order === 'desc') sorted.reverse();
  return sorted.slice(0, top);
}

export const zodRank = defineTool({
  name: 'rank_zod',
  description: 'Ranks words by length and keeps the first few (zod schemas).',
  inputSchema: z.strictObject({
    words: z.array(z.string().min(1)).min(1).max(50).describe('Words to rank'),
    top: z.number().int().min(1).max(10),
    order: z.enum(['asc', 'desc']).optional(),
  }),
  outputSchema: z.strictObject({ top: z.array(z.string()), count: z.number().int().min(0) }),
  blocking: true,
  module: import.meta.url,
  handler: ({ words, top, order }) => {
    const ranked = rank(words, top, order);
    return { top: ranked, count: ranked.length };
  },
});

export const jsonRank = defineTool({
  name: 'rank_json',
  description: 'Ranks words by length and keeps the first few (JSON Schema).',
  inputSchema: {
    type: 'object',
    properties: {
      words: {
        type: 'array',
        items: { type: 'string', minLength: 1 },
        minItems: 1,
        maxItems: 50,
        description: 'Words to rank',
      },
      top: { type: 'integer', minimum: 1, maximum: 10 },
      order: { type: 'string', enum: ['asc', 'desc'] },
    },
    required: ['words', 'top'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      top: { type: 'array', items: { type: 'string' } },
      count: { type: 'integer', minimum: 0 },
    },
    required: ['top', 'count'],
    additionalProperties: false,
  },
  blocking: true,
  module: import.meta.url,
  handler: ({ words, top, order }) => {
    const ranked = rank(words, top, order);
    return { top: ranked, count: ranked.length };
  },
});
