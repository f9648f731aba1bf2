/**
 * A multi-round request across replicas, and the state a client must not be able to forge: two weft
 * server processes that share a `requestStateKey` serve round 1 on one and the retry on the other;
 * a process with a key of its own refuses that state, as does any server for a state that was
 * changed, expired, moved to another tool or to other arguments. Malformed answers are refused,
 * missing ones asked again. Raw HTTP, so the test controls every byte of the retry.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { envelope, ModernHttpPeer, sseMessages, type Wire } from '../transports/modern-http-peer.js';
import { type ServerProcess, startMrtrServer } from './mrtr-server-process.js';

/** The same on every replica: 32 bytes as base64 (`openssl rand -base64 32`). */
const KEY = randomBytes(32).toString('base64');
const CAPABILITIES = {
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, sampling: {}, roots: {} },
};

/** The JSON-RPC answer of a reply, whether it came as JSON or on an SSE stream. */
function answerOf(reply: { body: Wire; raw: string }): Wire {
  if (reply.body !== undefined) return reply.body;
  return sseMessages(reply.raw).find(
    (message) => 'id' in message && ('result' in message || 'error' in message),
  );
}

async function call(peer: ModernHttpPeer, name: string, extra: Record<string, unknown> = {}): Promise<Wire> {
  const reply = await peer.request('tools/call', {
    name,
    arguments: {},
    ...extra,
    _meta: envelope(CAPABILITIES),
  });
  return answerOf(reply);
}

const accept = (content: Record<string, unknown>) => ({ action: 'accept', content });

describe('requestState across replicas, and refused when it cannot be trusted', () => {
  let first: ServerProcess;
  let second: ServerProcess;
  let stranger: ServerProcess;
  let shortLived: ServerProcess;
  /** Every server that did start, so `after` stops them even when another failed to start. */
  const started: ServerProcess[] = [];
  before(async () => {
    const starting = [
      startMrtrServer(['--state-key', KEY]),
      startMrtrServer(['--state-key', KEY]),
      startMrtrServer(),
      startMrtrServer(['--state-key', KEY, '--state-ttl', '300']),
    ].map((server) =>
      server.then((running) => {
        started.push(running);
        return running;
      }),
    );
    const settled = await Promise.allSettled(starting);
    const failed = settled.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    const [a, b, c, d] = settled.map((result) => (result as PromiseFulfilledResult<ServerProcess>).value);
    [first, second, stranger, shortLived] = [a!, b!, c!, d!];
  });
  after(async () => {
    await Promise.all(started.map((server) => server.stop()));
  });

  it('round 1 on one replica, the rounds after it on the other: the call completes', async () => {
    const one = new ModernHttpPeer(first.url);
    const two = new ModernHttpPeer(second.url);
    const round1 = await call(one, 'test_input_required_result_multi_round');
    assert.equal(round1.result.resultType, 'input_required');
    assert.deepEqual(Object.keys(round1.result.inputRequests), ['step1']);
    const round2 = await call(two, 'test_input_required_result_multi_round', {
      inputResponses: { step1: accept({ name: 'Ada' }) },
      requestState: round1.result.requestState,
    });
    assert.deepEqual(Object.keys(round2.result.inputRequests), ['step2']);
    assert.notEqual(round2.result.requestState, round1.result.requestState);
    const done = await call(one, 'test_input_required_result_multi_round', {
      inputResponses: { step2: accept({ color: 'green' }) },
      requestState: round2.result.requestState,
    });
    assert.equal(done.result.resultType, 'complete');
    assert.equal(done.result.content[0].text, 'Ada likes green');
  });

  it('a replica with another key refuses the state as failing its integrity check', async () => {
    const round1 = await call(new ModernHttpPeer(first.url), 'test_input_required_result_tampered_state');
    const retry = await call(new ModernHttpPeer(stranger.url), 'test_input_required_result_tampered_state', {
      inputResponses: { confirm: accept({ ok: true }) },
      requestState: round1.result.requestState,
    });
    assert.equal(retry.error.code, -32602);
    assert.equal(retry.error.data.requestState, 'tampered');
    assert.match(retry.error.message, /requestStateKey/);
  });

  it('a changed byte, another tool or other arguments: refused, saying which', async () => {
    const peer = new ModernHttpPeer(first.url);
    const round1 = await call(peer, 'test_input_required_result_tampered_state');
    const state: string = round1.result.requestState;
    const flipped = `${state.slice(0, -2)}${state.at(-2) === 'A' ? 'B' : 'A'}${state.at(-1)}`;
    const answers = { inputResponses: { confirm: accept({ ok: true }) } };
    const tampered = await call(peer, 'test_input_required_result_tampered_state', {
      ...answers,
      requestState: flipped,
    });
    assert.equal(tampered.error.data.requestState, 'tampered');
    const suffixed = await call(peer, 'test_input_required_result_tampered_state', {
      ...answers,
      requestState: `${state}-TAMPERED`,
    });
    assert.equal(suffixed.error.code, -32602);
    const otherTool = await call(peer, 'test_input_required_result_elicitation', {
      ...answers,
      requestState: state,
    });
    assert.equal(otherTool.error.data.requestState, 'mismatch');
    assert.match(otherTool.error.message, /test_input_required_result_tampered_state/);
    // A prompt takes any string arguments, so a retry can change them without failing a schema first.
    const prompt = (args: Record<string, string>, extra: Record<string, unknown> = {}) =>
      peer
        .request('prompts/get', {
          name: 'test_input_required_result_prompt',
          arguments: args,
          ...extra,
          _meta: envelope(CAPABILITIES),
        })
        .then(answerOf);
    const promptRound = await prompt({ topic: 'cats' });
    assert.equal(promptRound.result.resultType, 'input_required');
    const otherArgs = await prompt(
      { topic: 'dogs' },
      {
        inputResponses: { user_context: accept({ context: 'x' }) },
        requestState: promptRound.result.requestState,
      },
    );
    assert.equal(otherArgs.error.data.requestState, 'mismatch');
    assert.match(otherArgs.error.message, /other arguments/);
    const untouched = await call(peer, 'test_input_required_result_tampered_state', {
      ...answers,
      requestState: state,
    });
    assert.equal(untouched.result.content[0].text, 'Confirmed: accept');
  });

  it('a state past its expiry is refused as expired', async () => {
    const round1 = await call(
      new ModernHttpPeer(shortLived.url),
      'test_input_required_result_tampered_state',
    );
    await new Promise((resolve) => setTimeout(resolve, 600));
    // Sealed with a 300 ms life by the short-lived replica; any replica with the key sees it expired.
    const retry = await call(new ModernHttpPeer(first.url), 'test_input_required_result_tampered_state', {
      inputResponses: { confirm: accept({ ok: true }) },
      requestState: round1.result.requestState,
    });
    assert.equal(retry.error.code, -32602);
    assert.equal(retry.error.data.requestState, 'expired');
  });

  it('malformed answers are refused; missing or ill-shaped ones are asked again; extra keys ignored', async () => {
    const peer = new ModernHttpPeer(first.url);
    const notObject = await call(peer, 'test_input_required_result_elicitation', {
      inputResponses: { user_name: 5 },
    });
    assert.equal(notObject.error.code, -32602);
    assert.match(notObject.error.message, /inputResponses\["user_name"\]/);
    const nullResponses = await call(peer, 'test_input_required_result_elicitation', {
      inputResponses: null,
    });
    assert.equal(nullResponses.error.code, -32602);
    const wrongKey = await call(peer, 'test_input_required_result_elicitation', {
      inputResponses: { wrong_key: accept({ data: 'x' }) },
    });
    assert.equal(wrongKey.result.resultType, 'input_required');
    assert.deepEqual(Object.keys(wrongKey.result.inputRequests), ['user_name']);
    const illShaped = await call(peer, 'test_input_required_result_elicitation', {
      inputResponses: { user_name: { action: 'maybe' } },
    });
    assert.equal(illShaped.result.resultType, 'input_required');
    const extra = await call(peer, 'test_input_required_result_elicitation', {
      inputResponses: { user_name: accept({ name: 'Eve' }), unrelated: accept({ x: 1 }) },
    });
    assert.equal(extra.result.content[0].text, 'Hello, Eve!');
  });

  it('never asks what the request cannot answer: tools/list stays complete', async () => {
    const reply = answerOf(
      await new ModernHttpPeer(first.url).request('tools/list', { _meta: envelope(CAPABILITIES) }),
    );
    assert.equal(reply.result.resultType, 'complete');
  });
});
