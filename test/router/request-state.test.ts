/**
 * The sealed requestState: what it binds, and every way it is refused (with the reason in
 * `error.data.requestState`), without a server in the way.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProtocolError } from '../../lib/protocol/protocol-error.js';
import { argumentsDigest, RequestStateSeal, type RoundState } from '../../lib/router/request-state.js';

/** 32 random-looking bytes as base64, what `openssl rand -base64 32` prints. */
const KEY = 'q7Tz3mYp0c9Kf2LxV8sWb1Rj6NhUe4Ao5GdIiHkMlZQ=';
const round: RoundState = {
  method: 'tools/call',
  target: 'book_flight',
  digest: argumentsDigest({ from: 'LHR', to: 'CDG' }),
  answers: { confirm: { action: 'accept', content: { ok: true } } },
  asked: ['seat'],
  state: { step: 2 },
  chain: 'chain-of-this-call',
};
const origin = { method: round.method, target: round.target, digest: round.digest };

function refusedAs(problem: string) {
  return (error: unknown) => {
    assert.ok(error instanceof ProtocolError);
    assert.equal(error.code, -32602);
    assert.deepEqual(error.data, { requestState: problem });
    return true;
  };
}

describe('RequestStateSeal', () => {
  it('opens what it sealed, under the same key in another instance (another replica)', () => {
    const token = new RequestStateSeal({ key: KEY }).seal(round);
    assert.deepEqual(new RequestStateSeal({ key: KEY }).open(token, origin), round);
  });

  it('hides what it carries: no answer or state is readable in the token', () => {
    const token = new RequestStateSeal({ key: KEY }).seal(round);
    const decoded = Buffer.from(token.slice(3), 'base64url').toString('latin1');
    assert.ok(!decoded.includes('accept') && !decoded.includes('book_flight'));
  });

  it('refuses a token sealed under another key, or with any byte changed, as tampered', () => {
    const seal = new RequestStateSeal({ key: KEY });
    const token = seal.seal(round);
    assert.throws(() => new RequestStateSeal().open(token, origin), refusedAs('tampered'));
    // Bytes, not characters: the last base64url character may carry padding bits only, so changing
    // it can leave every byte as it was (the token's length varies with what it carries).
    const [version, body] = [token.slice(0, 3), Buffer.from(token.slice(3), 'base64url')];
    for (const at of [0, Math.floor(body.length / 2), body.length - 1]) {
      const bytes = Buffer.from(body);
      bytes[at] = bytes[at]! ^ 0x01;
      const changed = `${version}${bytes.toString('base64url')}`;
      assert.throws(() => seal.open(changed, origin), refusedAs('tampered'));
    }
    assert.throws(() => seal.open(`${token}-TAMPERED`, origin), refusedAs('tampered'));
    assert.throws(() => seal.open(42, origin), refusedAs('malformed'));
  });

  it('refuses a state past its life as expired', () => {
    const seal = new RequestStateSeal({ key: KEY, ttlMs: 1_000 });
    const token = seal.seal(round, 10_000);
    assert.deepEqual(seal.open(token, origin, 11_000), round);
    assert.throws(() => seal.open(token, origin, 11_001), refusedAs('expired'));
  });

  it('refuses a state brought to another method, target or arguments as a mismatch', () => {
    const seal = new RequestStateSeal({ key: KEY });
    const token = seal.seal(round);
    assert.throws(() => seal.open(token, { ...origin, target: 'cancel_flight' }), refusedAs('mismatch'));
    assert.throws(() => seal.open(token, { ...origin, method: 'prompts/get' }), refusedAs('mismatch'));
    const other = argumentsDigest({ from: 'LHR', to: 'JFK' });
    assert.throws(() => seal.open(token, { ...origin, digest: other }), refusedAs('mismatch'));
  });

  it('digests arguments whatever the order of their keys', () => {
    assert.equal(
      argumentsDigest({ a: 1, b: [{ c: 2, d: 3 }] }),
      argumentsDigest({ b: [{ d: 3, c: 2 }], a: 1 }),
    );
    assert.notEqual(argumentsDigest({ a: 1 }), argumentsDigest({ a: '1' }));
  });

  it('refuses a key that is not random key material, saying how to make one', () => {
    assert.throws(() => new RequestStateSeal({ key: 'short' }), /openssl rand -base64 32/);
  });
});
