/**
 * The fleet's options are checked when the server is built and when a tool is registered, with a
 * message that says what to fix: a Redis URL that is not one, an unknown key, a queue name BullMQ
 * cannot use, a tool placed on a fleet the server does not have, retries for a tool that has not
 * said it is idempotent. No Redis is needed: nothing here connects.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FleetOptions } from '../../lib/engine/fleet-options.js';
import { McpServer, ToolRegistrationError } from '../../lib/index.js';

const REDIS = 'redis://127.0.0.1:1';
const serverWith = (fleet: unknown) =>
  new McpServer({ name: 'fleet-options', version: '1', fleet: fleet as FleetOptions });

/** A blocking tool definition with `extra` options; typed loosely since the tests pass wrong ones on purpose. */
const blockingTool = (extra: Record<string, unknown>) =>
  ({
    name: 'heavy',
    inputSchema: { type: 'object', properties: {} },
    blocking: true,
    // A module of its own: a blocking tool's module may not be the one that builds the server.
    module: new URL('../support/fixture-tools.js', import.meta.url).href,
    export: 'nothing',
    ...extra,
  }) as never;

/** Asserts `build` throws a TypeError whose message contains every fragment. */
function refuses(build: () => unknown, ...fragments: string[]): void {
  assert.throws(build, (error: Error) => {
    for (const fragment of fragments) {
      assert.ok(error.message.includes(fragment), `"${error.message}" should include "${fragment}"`);
    }
    return true;
  });
}

describe('fleet options are refused with a message that says what to fix', () => {
  it('refuses a Redis URL that is not a redis:// or rediss:// URL', () => {
    for (const redis of ['http://127.0.0.1:6379', '127.0.0.1:6379', '', 6379, undefined]) {
      refuses(
        () => serverWith({ redis }),
        'McpServer: fleet.redis must be a redis:// (or rediss://) URL such as redis://127.0.0.1:6379',
        `got ${JSON.stringify(redis)}`,
      );
    }
    assert.doesNotThrow(() => serverWith({ redis: 'rediss://user:secret@cache.example:6380/2' }));
  });

  it('refuses an unknown key, naming it and the known ones', () => {
    refuses(
      () => serverWith({ redis: REDIS, queueName: 'x' }),
      'McpServer: fleet: unknown option "queueName"',
      'Known: redis, queue, maxWaiting, placement, checkIntervalMs',
    );
  });

  it('refuses a fleet that is not an object', () => {
    refuses(() => serverWith(REDIS), 'McpServer: fleet must be an object such as { redis:');
  });

  it('refuses a queue name BullMQ cannot use, and bad bounds', () => {
    refuses(
      () => serverWith({ redis: REDIS, queue: 'a:b' }),
      'McpServer: fleet.queue must be 1 to 100 characters of [A-Za-z0-9_.-], got "a:b"',
    );
    refuses(
      () => serverWith({ redis: REDIS, maxWaiting: -1 }),
      'fleet.maxWaiting must be a whole number of jobs (0 or more), got -1',
    );
    refuses(
      () => serverWith({ redis: REDIS, checkIntervalMs: 10 }),
      'fleet.checkIntervalMs must be a whole number of at least 50 ms, got 10',
    );
    refuses(
      () => serverWith({ redis: REDIS, placement: 'cloud' }),
      `fleet.placement must be 'fleet' or 'local', got "cloud"`,
    );
  });

  it("refuses a tool with placement 'fleet' on a server without a fleet", () => {
    const server = new McpServer({ name: 'no-fleet', version: '1' });
    assert.throws(
      () => server.tool(blockingTool({ placement: 'fleet' })),
      (error: Error) =>
        error instanceof ToolRegistrationError &&
        error.message.includes(
          `Tool "heavy": placement: 'fleet' needs a fleet: give the server a fleet option`,
        ),
    );
    assert.doesNotThrow(() => serverWith({ redis: REDIS }).tool(blockingTool({ placement: 'fleet' })));
    assert.doesNotThrow(() => server.tool(blockingTool({ name: 'here', placement: 'local' })));
  });

  it('refuses fleetRetries on a tool that is not annotated idempotent, and out-of-range retries', () => {
    const server = serverWith({ redis: REDIS });
    assert.throws(
      () => server.tool(blockingTool({ fleetRetries: 1 })),
      (error: Error) =>
        error instanceof ToolRegistrationError &&
        error.message.includes('Tool "heavy": fleetRetries runs a call again after its worker died') &&
        error.message.includes('set annotations.idempotentHint: true, or remove fleetRetries'),
    );
    assert.throws(
      () => server.tool(blockingTool({ fleetRetries: 1, annotations: { idempotentHint: false } })),
      /annotations\.idempotentHint: true/,
    );
    assert.throws(
      () => server.tool(blockingTool({ fleetRetries: 11, annotations: { idempotentHint: true } })),
      /fleetRetries must be a whole number from 0 to 10, got 11/,
    );
    assert.doesNotThrow(() =>
      server.tool(blockingTool({ name: 'again', fleetRetries: 1, annotations: { idempotentHint: true } })),
    );
  });

  it('refuses placement and fleetRetries on a tool that is not blocking', () => {
    const server = serverWith({ redis: REDIS });
    for (const key of ['placement', 'fleetRetries']) {
      assert.throws(
        () =>
          server.tool({
            name: `inline_${key}`,
            inputSchema: { type: 'object', properties: {} },
            handler: () => 'x',
            [key]: key === 'placement' ? 'local' : 0,
          } as never),
        new RegExp(`${key} applies to blocking tools only; add blocking: true or remove it`),
      );
    }
  });
});
