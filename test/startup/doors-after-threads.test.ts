/**
 * A server opens its doors once its pool's threads are up (issue 41): until they have loaded their
 * entry the main thread is busy with them, and a first call let in then was answered up to 18 ms
 * past its deadline. The server runs as a real process whose worker threads are held 300 ms before
 * their entry loads (slow-thread-start.cts); once listen() resolves it says how many had loaded.
 * A server with no blocking tool does not wait for threads it may never use.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startReadyChild } from '../support/ready-child.js';

const SERVER = fileURLToPath(new URL('./doors-after-threads-server.js', import.meta.url));
const SLOW_START = fileURLToPath(new URL('./slow-thread-start.cjs', import.meta.url));
const { threadLogOf } = createRequire(import.meta.url)(SLOW_START) as {
  threadLogOf: (pid: number) => string;
};

describe('a server opens its doors after its threads', () => {
  /** Starts the server and returns how many threads had loaded when listen() resolved. */
  async function threadsLoadedAtListen(env: Record<string, string>, name: string): Promise<number> {
    const { child, ready } = await startReadyChild(['-r', SLOW_START, SERVER], {
      name,
      env,
      ready: (output) => output.match(/threads loaded before: (\d+)/)?.[1],
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    rmSync(threadLogOf(child.pid!), { force: true });
    return Number(ready);
  }

  it('listen() resolves once every pool thread has loaded, when a blocking tool will run on them', async () => {
    assert.equal(await threadsLoadedAtListen({}, 'blocking'), 2);
  });

  it('does not wait for threads when every tool runs inline', async () => {
    assert.equal(await threadsLoadedAtListen({ WEFT_INLINE_ONLY: '1' }, 'inline'), 0);
  });
});
