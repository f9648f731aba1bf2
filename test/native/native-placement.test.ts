/**
 * A tool's module found native at its first call: that call's handler never ran in the thread that
 * found it, it runs once where the tool belongs (a pool process by default, the pinned tool's own
 * native threads with `isolation: 'thread'`), later calls go there at once, and the log says where
 * once per tool. A pure-JavaScript tool beside them is not touched.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { McpServer } from '../../lib/index.js';
import { InProcessClient } from '../support/in-process-client.js';
import { countedHashDefault, countedHashThread } from './counted-tools.js';
import { trivial } from './plain-tool.js';

const logged: string[] = [];
const server = new McpServer({
  name: 'native-placement',
  version: '1',
  pool: { maxThreads: 2 },
  logError: (message) => logged.push(message),
})
  .tool(countedHashDefault)
  .tool(countedHashThread)
  .tool(trivial);
const client = new InProcessClient(server);
await client.initialize();
const dir = mkdtempSync(join(tmpdir(), 'weft-native-'));
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

for (const [name, where] of [
  ['counted_hash', /runs in a pool process/],
  ['counted_hash_thread', /pinned to threads/],
] as const) {
  test(`${name}: each call's handler runs once, and the log says where, once`, async () => {
    const file = join(dir, `${name}.log`);
    for (let call = 0; call < 3; call++) {
      const answer = await client.callTool(name, { file });
      const text = JSON.stringify(answer.result?.content);
      assert.match(text, /argon2id/, text);
    }
    assert.equal(readFileSync(file, 'utf8'), 'ran\n'.repeat(3));
    const told = logged.filter((line) =>
      line.startsWith(`weft: tool "${name}" loads native code (argon2.node)`),
    );
    assert.equal(told.length, 1, logged.join('\n'));
    assert.match(told[0]!, where);
  });
}

test('a pure-JavaScript tool is not said to load native code, and runs in a thread as before', async () => {
  const answer = await client.callTool('trivial', {});
  assert.deepEqual(answer.result?.content, [{ type: 'text', text: 'done' }]);
  assert.equal(logged.filter((line) => line.includes('"trivial"')).length, 0);
});
