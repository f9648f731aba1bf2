/**
 * `regex_search {pattern, text}`: runs a user-supplied regular expression. A pattern like
 * `(a+)+$` backtracks catastrophically; on the event loop that would freeze the server, here the
 * deadline terminates the thread.
 */
import { defineTool } from '../../lib/tool.js';

export default defineTool({
  name: 'regex_search',
  description: 'Finds every match of a JavaScript regular expression in text (user patterns are safe here).',
  inputSchema: {
    type: 'object',
    properties: {
      pattern: { type: 'string', maxLength: 1000 },
      flags: { type: 'string', pattern: '^[gimsuy]*$' },
      text: { type: 'string', maxLength: 1_000_000 },
    },
    required: ['pattern', 'text'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  blocking: true,
  module: import.meta.url,
  timeoutMs: 1_000,
  handler: ({ pattern, flags = '', text }) => {
    let regex: RegExp;
    try {
      regex = new RegExp(pattern, flags.includes('g') ? flags : `${flags}g`);
    } catch (error) {
      throw new Error(`Invalid pattern: ${(error as Error).message}`);
    }
    const matches: { index: number; match: string }[] = [];
    for (const found of text.matchAll(regex)) {
      matches.push({ index: found.index ?? 0, match: found[0] });
      if (matches.length >= 1000) break;
    }
    return JSON.stringify({ count: matches.length, matches });
  },
});
