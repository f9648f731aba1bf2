/**
 * The runnable examples of README.md and docs/ (blocks after an `<!-- example: path -->` marker)
 * are the files under examples/quickstart/, shown whole: each block must equal its file, so the
 * page cannot drift from code that tsc and biome check. Then the examples run as a reader would run
 * them: `weft serve` over stdio with the official SDK client, `weft serve --http` with `weft call`
 * (the landing page's commands), and the in-memory test file under node:test.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { docFiles, embeddedExamples, read, root } from './markdown.js';

const run = promisify(execFile);
const cli = join(root, 'dist', 'lib', 'cli.js');
const serverModule = join(root, 'dist', 'examples', 'quickstart', 'server.js');

describe('the examples the docs embed', () => {
  const embedded = docFiles().flatMap((file) =>
    embeddedExamples(read(file)).map((e) => ({ ...e, doc: file })),
  );

  it('the landing page embeds the server, the blocking tool and the in-memory test', () => {
    const onReadme = embedded.filter((example) => example.doc === 'README.md').map((example) => example.file);
    assert.deepEqual(onReadme, [
      'examples/quickstart/server.ts',
      'examples/quickstart/tools/fib.ts',
      'examples/quickstart/server.test.ts',
    ]);
  });

  for (const example of embedded) {
    it(`${example.doc}:${example.line} shows ${example.file} as it is`, () => {
      assert.ok(existsSync(join(root, example.file)), `${example.file} does not exist`);
      assert.equal(example.code, readFileSync(join(root, example.file), 'utf8'));
    });
  }
});

describe('the quickstart runs', { timeout: 60_000 }, () => {
  it('weft serve --stdio: the official SDK client lists and calls echo and fib', async () => {
    const client = new Client({ name: 'docs-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [cli, 'serve', serverModule, '--stdio'] }),
    );
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((tool) => tool.name).sort(), ['echo', 'fib']);
      const fib = await client.callTool({ name: 'fib', arguments: { n: 30 } });
      assert.deepEqual(fib.structuredContent, { value: 832040 });
      const echo = await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
      assert.deepEqual(echo.content, [{ type: 'text', text: 'hello' }]);
      const invalid = await client.callTool({ name: 'fib', arguments: { n: 'thirty' } });
      assert.equal(invalid.isError, true);
    } finally {
      await client.close();
    }
  });

  it('weft serve --http, then weft call ... fib n=30 prints the value', async () => {
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    const server = spawn(process.execPath, [cli, 'serve', serverModule, '--http', String(port)], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    server.stderr.on('data', (chunk) => (stderr += chunk));
    try {
      const url = `http://127.0.0.1:${port}/mcp`;
      let output: string | undefined;
      for (let attempt = 0; output === undefined; attempt++) {
        try {
          output = (await run(process.execPath, [cli, 'call', url, 'fib', 'n=30'])).stdout;
        } catch (error) {
          if (attempt >= 40) throw new Error(`weft call never succeeded: ${error}; server stderr: ${stderr}`);
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      }
      assert.equal(output, `{"value":832040}\n`);
    } finally {
      server.kill('SIGTERM');
    }
  });

  it('the in-memory test file passes under node:test', async () => {
    const file = join(root, 'dist', 'examples', 'quickstart', 'server.test.js');
    // Without NODE_TEST_CONTEXT the child reports as a top-level run would, not to this runner.
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    const { stdout } = await run(process.execPath, ['--test', '--test-reporter=tap', file], { env });
    assert.match(stdout, /# pass 2\n/);
    assert.match(stdout, /# fail 0\n/);
  });
});
