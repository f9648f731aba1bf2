import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { connectOverStdio } from '../support/sdk-stdio.js';

const CLI = fileURLToPath(new URL('../../lib/cli.js', import.meta.url));
const SERVED = fileURLToPath(new URL('../support/cli-served-server.js', import.meta.url));

describe('the weft command', () => {
  it('serves a module whose default export builds an McpServer, over stdio', async () => {
    const session = await connectOverStdio(CLI, ['serve', SERVED, '--stdio']);
    try {
      assert.equal(session.client.getServerVersion()?.name, 'served-by-cli');
      const result = await session.client.callTool({ name: 'hello', arguments: { name: 'weft' } });
      assert.deepEqual(result.content, [{ type: 'text', text: 'hello, weft' }]);
    } finally {
      await session.close();
    }
  });

  it('explains its usage and exits 2 when no transport is given', () => {
    const run = spawnSync(process.execPath, [CLI, 'serve', SERVED], { encoding: 'utf8' });
    assert.equal(run.status, 2);
    assert.match(run.stderr, /usage: weft serve <module.js> \(--stdio \| --http PORT/);
  });
});
