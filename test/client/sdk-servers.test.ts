/**
 * weft/client against the official SDK's servers: 1.x on stdio (legacy era only: the probe falls
 * back to initialize; its server-to-client elicitation is answered by the client's handler; a
 * cancel reaches its handler's signal) and v2 over Streamable HTTP (the 2026-07-28 era, found by
 * the server/discover probe).
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { connect, type McpClient } from '../../lib/client/index.js';
import { freePort } from '../support/free-port.js';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const text = (result: Record<string, unknown>) =>
  (result.content as { text?: string }[]).map((block) => block.text).join('|');

describe('the official SDK 1.x server on stdio', () => {
  let client: McpClient;
  const stderr: string[] = [];
  before(async () => {
    client = await connect(
      {
        command: process.execPath,
        args: [here('./sdk1-asking-server.js')],
        stderr: (chunk) => stderr.push(chunk),
      },
      { onElicitation: async () => ({ action: 'accept', content: { name: 'grace' } }) },
    );
  });
  after(() => client.close());

  test('auto falls back to the legacy handshake', () => {
    assert.equal(client.era, 'legacy');
    assert.equal(client.serverInfo?.name, 'sdk1-upstream');
  });

  test('lists and calls tools, prompts and resources', async () => {
    const names = (await client.listTools()).map((tool) => tool.name);
    assert.deepEqual(names.sort(), ['ask_name', 'die', 'echo', 'slow']);
    assert.equal(text(await client.callTool('echo', { text: 'hi' })), 'hi');
    const prompt = await client.getPrompt('greeting', { who: 'x' });
    assert.match(JSON.stringify(prompt.messages), /Hello x/);
    assert.ok((await client.listResources()).some((resource) => resource.uri === 'static://hello'));
    const read = await client.readResource('note://7');
    assert.match(JSON.stringify(read.contents), /note 7/);
  });

  test("answers the server's elicitation request with the registered handler", async () => {
    assert.equal(text(await client.callTool('ask_name')), 'hello grace (accept)');
  });

  test('progress arrives and an abort reaches the handler as notifications/cancelled', async () => {
    const controller = new AbortController();
    const progress: unknown[] = [];
    const call = client.callTool(
      'slow',
      { ms: 20_000 },
      {
        signal: controller.signal,
        onprogress: (p) => {
          progress.push(p.progress);
          controller.abort(new Error('stop'));
        },
      },
    );
    await assert.rejects(call, /stop/);
    assert.deepEqual(progress, [1]);
    for (let i = 0; i < 100 && !stderr.join('').includes('slow was cancelled'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.match(stderr.join(''), /slow was cancelled/);
  });
});

describe('the official SDK v2 server over Streamable HTTP', () => {
  let child: ChildProcess;
  let url: string;
  before(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}/mcp`;
    child = spawn(
      process.execPath,
      [here('../../benchmarks/peers/sdk-v2-server.js'), '--http', String(port)],
      {
        stdio: 'ignore',
      },
    );
    for (let i = 0; i < 100; i++) {
      const up = await fetch(url, { method: 'POST', body: '{}' }).then(
        () => true,
        () => false,
      );
      if (up) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
  after(() => {
    child.kill();
  });

  test('auto finds the modern era; list and call', async () => {
    const client = await connect(url);
    assert.equal(client.era, 'modern');
    assert.equal(client.protocolVersion, '2026-07-28');
    const names = (await client.listTools()).map((tool) => tool.name);
    assert.ok(names.includes('echo'), names.join());
    assert.equal(text(await client.callTool('echo', { text: 'v2' })), 'v2');
    await client.close();
  });

  test('pinned to the legacy era it speaks 2025-11-25 to the same server', async () => {
    const client = await connect(url, { protocol: 'legacy' });
    assert.equal(client.era, 'legacy');
    assert.equal(text(await client.callTool('echo', { text: 'old' })), 'old');
    await client.close();
  });
});
