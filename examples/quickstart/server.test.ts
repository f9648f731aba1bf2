// server.test.ts: the landing page's test (README.md embeds this file): the server in memory, no socket.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { connectInMemory } from 'weft-mcp/testing';
import server from './server.js';

after(() => server.close());

for (const protocol of ['legacy', 'modern'] as const) {
  test(`fib and echo, ${protocol} era`, async () => {
    const client = await connectInMemory(server, { protocol });
    const result = await client.callTool('fib', { n: 30 });
    assert.deepEqual(result.structuredContent, { value: 832040 });
    const echoed = await client.callTool('echo', { text: 'hi' });
    assert.deepEqual(echoed.content, [{ type: 'text', text: 'hi' }]);
    await client.close();
  });
}
