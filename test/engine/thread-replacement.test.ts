/**
 * A terminated thread is replaced when it has exited, not while it is still dying: the pool never
 * runs more threads than `maxThreads` (a replacement started beside a dying thread can make glibc
 * open another malloc arena that the process keeps; see lib/engine/pool-executor.ts). A handler
 * stuck in a kernel call keeps its thread alive after the termination, which holds that window open
 * for as long as the test likes.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { McpServer } from '../../lib/index.js';
import { blockedInNative, busy } from '../support/fixture-tools.js';
import { InProcessClient } from '../support/in-process-client.js';

const dir = mkdtempSync(join(tmpdir(), 'weft-replacement-'));
const server = new McpServer({ name: 'replacement', version: '1', pool: { maxThreads: 1 } })
  .tool(busy)
  .tool(blockedInNative);
const client = new InProcessClient(server);
await client.initialize();
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Threads of this process, as the kernel counts them. */
const osThreads = () => Number(/^Threads:\s+(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'))![1]);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('replacing a terminated thread', () => {
  it('waits for the dying thread to exit, so that no more threads run than maxThreads', async () => {
    // Warm up: the pool's thread has served a call and libuv's threads exist.
    assert.deepEqual((await client.callTool('busy', { ms: 1 })).result?.content, [
      { type: 'text', text: 'busy 1' },
    ]);
    await readFile(new URL(import.meta.url));
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const before = osThreads();

    const answer = await client.callTool('blocked_in_native', { fifo });
    try {
      assert.match(JSON.stringify(answer), /timed out.*200 ms deadline/);
      // The thread is terminated but cannot die while the kernel holds it in open().
      await sleep(300);
      assert.equal(osThreads(), before, 'no replacement runs beside the dying thread');
      assert.equal(server.stats.threads, 1);
      assert.equal(server.stats.freeThreads, 0, 'its slot waits for its exit');
    } finally {
      // A writer lets open() return; the termination then takes the thread, and its replacement serves.
      writeFileSync(fifo, 'released');
    }
    const next = await client.callTool('busy', { ms: 5 });
    assert.deepEqual(next.result?.content, [{ type: 'text', text: 'busy 5' }]);
    assert.equal(osThreads(), before, 'one thread again, the replacement');
  });
});
