/**
 * argon2 tools whose handlers write a line to a file each time they run, so a test can tell that a
 * call moved because its module loads native code ran its handler once, never twice.
 */
import { appendFileSync } from 'node:fs';
import argon2 from 'argon2';
import { defineTool } from '../../lib/tool.js';

const countedArgs = {
  type: 'object',
  properties: { file: { type: 'string' } },
  required: ['file'],
} as const;

async function countedHash({ file }: { file: string }): Promise<string> {
  appendFileSync(file, 'ran\n');
  return argon2.hash('secret', { memoryCost: 1024, timeCost: 1 });
}

export const countedHashDefault = defineTool({
  name: 'counted_hash',
  inputSchema: countedArgs,
  blocking: true,
  module: import.meta.url,
  export: 'countedHashDefault',
  handler: countedHash,
});

export const countedHashThread = defineTool({
  name: 'counted_hash_thread',
  inputSchema: countedArgs,
  blocking: true,
  module: import.meta.url,
  export: 'countedHashThread',
  isolation: 'thread',
  handler: countedHash,
});
