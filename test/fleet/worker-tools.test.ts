/**
 * Which tools `weft worker` runs from a module: the blocking tools of a server module (its default
 * export), or the blocking definitions a module exports; never an inline tool; and a module with
 * none is refused with a message that says what the worker expects. Loading a server module must
 * not reach for Redis: the fixture's URL points at nothing, and loading still succeeds at once.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadWorkerTools } from '../../lib/fleet/worker-tools.js';

const here = (name: string) => fileURLToPath(new URL(name, import.meta.url));

describe('weft worker: the tools a module gives it', () => {
  it("takes a server module's blocking tools, fleet and local alike, and leaves its inline ones", async () => {
    const started = Date.now();
    const tools = await loadWorkerTools(here('./fleet-server-module.js'));
    assert.deepEqual(
      tools.filter((tool) => tool.blocking).map((tool) => tool.name),
      ['local_pid', 'spin', 'whoami'],
    );
    assert.ok(Date.now() - started < 5_000, 'no wait for the Redis the module names');
  });

  it("takes a module's exported blocking definitions", async () => {
    const tools = await loadWorkerTools(here('./fleet-tools.js'));
    assert.deepEqual(
      tools.map((tool) => tool.name),
      ['bigint', 'greet', 'local_pid', 'retried', 'spin', 'steps', 'whoami'],
    );
  });

  it("takes a transformed tool's original: the renamed tool itself, and a custom handler's pooled original", async () => {
    const tools = await loadWorkerTools(here('./fleet-transformed-module.js'));
    assert.deepEqual(
      tools.map((tool) => [tool.name, tool.blocking && tool.handlerName]),
      [
        ['burn', 'spin'],
        ['spin', 'spin'],
      ],
    );
  });

  it('refuses a module with no blocking tool, saying what it expects', async () => {
    await assert.rejects(
      loadWorkerTools(fileURLToPath(new URL('../support/cli-served-server.js', import.meta.url))),
      /exports no blocking tool: export the server/,
    );
  });
});
