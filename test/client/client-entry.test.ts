/**
 * `weft/client` stands alone: its entry reaches only the client and protocol rooms (no router,
 * engine, transports or server facade), and it speaks to a weft server over stdio in both eras.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { connect } from '../../lib/client/index.js';

const distLib = fileURLToPath(new URL('../../lib/', import.meta.url));

function localImports(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const match of source.matchAll(/(?:import|export)[^'"]*?from\s+'(\.[^']+)'|import\('(\.[^']+)'\)/g)) {
    const spec = match[1] ?? match[2];
    if (spec) found.push(resolve(dirname(file), spec));
  }
  return found;
}

describe('weft/client entry', () => {
  test('imports nothing outside lib/client and lib/protocol', () => {
    const seen = new Set<string>();
    const queue = [resolve(distLib, 'client/index.js')];
    while (queue.length > 0) {
      const file = queue.pop() as string;
      if (seen.has(file)) continue;
      seen.add(file);
      queue.push(...localImports(file));
    }
    const rooms = [...seen].map((file) => relative(distLib, file).split('/')[0]);
    assert.ok(seen.size > 5);
    assert.deepEqual([...new Set(rooms)].sort(), ['client', 'protocol']);
  });

  for (const protocol of ['modern', 'legacy'] as const) {
    test(`talks to a weft server on stdio, ${protocol} era`, async () => {
      const client = await connect(
        {
          command: process.execPath,
          args: [fileURLToPath(new URL('../support/fixture-server.js', import.meta.url))],
          stderr: 'ignore',
        },
        { protocol },
      );
      assert.equal(client.era, protocol);
      assert.equal(client.serverInfo?.name, 'weft-fixtures');
      const tools = (await client.listTools()).map((tool) => tool.name);
      assert.ok(tools.includes('cooperative'));
      const result = await client.callTool('cooperative', { ms: 10 });
      assert.deepEqual(result.content, [{ type: 'text', text: 'finished' }]);
      await client.close();
    });
  }
});
