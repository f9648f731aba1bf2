/**
 * Tests written against .ts sources (node --test src/*.test.ts, or vitest) run blocking tools: on a
 * Node that strips types (>= 22.18), the pool's threads import the tool's .ts module as Node loads
 * it. Runs the fixture with this Node when it strips types, or with WEFT_TS_NODE (a path to such a
 * node); skipped with a message otherwise (CI's matrix runs Node 22 and 24).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { root } from '../docs/markdown.js';

// The .ts source itself, not its compiled copy under dist/.
const CHECK = fileURLToPath(
  new URL('../../../test/sources/fixtures/against-sources.check.ts', import.meta.url),
);

function typeStrippingNode(): string | undefined {
  if ((process.features as { typescript?: unknown }).typescript) return process.execPath;
  return process.env.WEFT_TS_NODE || undefined;
}

const node = typeStrippingNode();

describe('tests against .ts sources', () => {
  it('run a blocking tool whose module is a .ts file', {
    skip:
      node === undefined && `Node ${process.version} does not strip types: needs >= 22.18 (or WEFT_TS_NODE)`,
  }, () => {
    // Its own test run, reporting to its own stdout rather than to this one's runner.
    const env = { ...process.env };
    delete env.NODE_TEST_CONTEXT;
    const run = spawnSync(node!, ['--test', '--test-reporter=spec', CHECK], {
      cwd: root,
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /a blocking tool runs in a pool thread from its \.ts module/);
  });
});
