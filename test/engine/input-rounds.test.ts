/**
 * A call run in rounds (EngineCall.inputs), seen from the engine alone: a question its answers lack
 * ends the attempt with the 'input-required' outcome and aborts the handler's signal; the deadline
 * applies to each attempt; a cancel still stops an attempt; a missing capability is named in the
 * tool error; answers given up front let the handler finish.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Cancellation } from '../../lib/engine/cancellation.js';
import { Engine } from '../../lib/engine/engine.js';
import type { CallInputs, CallPeer } from '../../lib/engine/engine-call.js';
import { NO_LOGS } from '../../lib/protocol/log-levels.js';
import { SchemaCompiler } from '../../lib/tools/schema-compiler.js';
import type { ToolContext } from '../../lib/tools/tool-context.js';
import { ToolRegistry } from '../../lib/tools/tool-registry.js';

const engine = new Engine({ maxThreads: 1, maxQueue: 1, graceMs: 100, niceIncrement: 0, logError: () => {} });
after(() => engine.close());

const registry = new ToolRegistry(new SchemaCompiler(), () => {});
const form = { message: 'Name?', requestedSchema: { type: 'object', properties: {} } };
let lastSignal: AbortSignal | undefined;

registry.add({
  name: 'asks_after',
  inputSchema: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] },
  handler: async ({ ms }: { ms: number }, ctx: ToolContext) => {
    lastSignal = ctx.signal;
    await new Promise((resolve) => setTimeout(resolve, ms));
    const answer = await ctx.elicit!(form, { key: 'name' });
    await new Promise((resolve) => setTimeout(resolve, ms));
    return `hello ${String(answer.content?.name)}`;
  },
} as never);

function peerWith(capabilities: Record<string, unknown>): CallPeer {
  return {
    clientCapabilities: capabilities,
    request: () => Promise.reject(new Error('a call in rounds never asks live')),
    tools: () => {
      throw new Error('unused');
    },
    resources: () => {
      throw new Error('unused');
    },
    prompts: () => {
      throw new Error('unused');
    },
  };
}

function run(ms: number, inputs: CallInputs, budgetMs = 0, cancellation = new Cancellation()) {
  return engine.run({
    tool: registry.get('asks_after')!,
    args: { ms },
    budgetMs,
    cancellation,
    events: { log: () => {}, minLogLevel: NO_LOGS },
    peer: peerWith({ elicitation: {} }),
    inputs,
  });
}

describe('a call run in rounds', () => {
  it('ends its attempt at the first unanswered question, and aborts the handler', async () => {
    const outcome = await run(0, { answers: {} });
    assert.deepEqual(outcome, {
      kind: 'input-required',
      questions: [{ key: 'name', method: 'elicitation/create', params: form }],
    });
    assert.equal(lastSignal?.aborted, true);
  });

  it('finishes with the answers given up front', async () => {
    const outcome = await run(0, { answers: { name: { action: 'accept', content: { name: 'Ada' } } } });
    assert.deepEqual(outcome, { kind: 'ok', value: 'hello Ada' });
  });

  it('holds each attempt to the deadline', async () => {
    // The asking attempt ends inside its 250 ms; an answered one that works 300 ms does not.
    assert.equal((await run(150, { answers: {} }, 250)).kind, 'input-required');
    const answered = { answers: { name: { action: 'accept', content: { name: 'Bo' } } } };
    assert.equal((await run(150, answered, 250)).kind, 'timeout');
    assert.equal((await run(100, answered, 1_000)).kind, 'ok');
  });

  it('is still stopped by a cancel during an attempt', async () => {
    const cancellation = new Cancellation();
    const outcome = run(500, { answers: {} }, 0, cancellation);
    setTimeout(() => cancellation.cancel('cancelled'), 50);
    assert.deepEqual(await outcome, { kind: 'cancelled', reason: 'cancelled' });
  });

  it('names the capability a refused question needed', async () => {
    const outcome = await engine.run({
      tool: registry.get('asks_after')!,
      args: { ms: 0 },
      budgetMs: 0,
      cancellation: new Cancellation(),
      events: { log: () => {}, minLogLevel: NO_LOGS },
      peer: peerWith({}),
      inputs: { answers: {} },
    });
    assert.equal(outcome.kind, 'tool-error');
    assert.equal(outcome.kind === 'tool-error' && outcome.missingCapability, 'elicitation');
  });
});
