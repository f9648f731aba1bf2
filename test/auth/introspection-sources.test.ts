/**
 * The pieces introspection shares its capacity with, on their own: what counts as one source (an
 * IPv4 address, an IPv6 /64), how much one source may start (a bucket that refills, and forgets a
 * source once full again), and the options that bound them, refused with what to write instead.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addressSource } from '../../lib/auth/introspection-source.js';
import { SourceBudget } from '../../lib/auth/source-budget.js';
import { oauthResourceServer } from '../../lib/index.js';

describe('the source of a request', () => {
  it('is the IPv4 address, the IPv4 of a mapped address, or the IPv6 /64', () => {
    assert.equal(addressSource('127.0.0.2'), '127.0.0.2');
    assert.equal(addressSource('::ffff:10.1.2.3'), '10.1.2.3');
    assert.equal(addressSource('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
    assert.equal(addressSource('2001:db8:1:2:bbbb:cccc:dddd:eeee'), '2001:db8:1:2::/64');
    assert.notEqual(addressSource('2001:db8:1:3::1'), addressSource('2001:db8:1:2::1'));
    assert.equal(addressSource('::1'), '0:0:0:0::/64');
    assert.equal(addressSource(undefined), 'unknown');
  });
});

describe('a source budget', () => {
  it('lets a source start its burst, then one per refill; other sources keep theirs', () => {
    const budget = new SourceBudget(3, 2);
    const at = 1_000_000;
    assert.deepEqual(
      [0, 1, 2].map(() => budget.take('a', at)),
      [0, 0, 0],
    );
    assert.equal(budget.take('a', at), 500, 'the next one in 500 ms (2 a second)');
    assert.equal(budget.take('b', at), 0, 'another source has its own');
    assert.equal(budget.take('a', at + 500), 0);
    assert.ok(budget.take('a', at + 500) > 0);
  });

  it('forgets a source once its bucket has refilled, and holds at most maxSources', () => {
    const budget = new SourceBudget(2, 10, 100);
    for (let i = 0; i < 1_000; i++) budget.take(`s${i}`, 0);
    assert.equal(budget.size, 100, 'at most maxSources remembered');
    budget.take('late', 10_000);
    assert.equal(budget.size, 1, 'the refilled ones are forgotten');
  });
});

describe('the options that bound them', () => {
  const introspection = { clientId: 'weft', clientSecret: 'secret' };
  it('refuse a stale window beyond five minutes, saying why', () => {
    assert.throws(
      () =>
        oauthResourceServer({
          issuer: 'https://as.example',
          introspection: { ...introspection, staleWindowMs: 3_600_000 },
        }),
      /introspection.staleWindowMs is at most 300000 ms: while the authorization server cannot be asked, a revoked token works that long/,
    );
  });

  it('refuse a burst that is not a positive integer', () => {
    assert.throws(
      () =>
        oauthResourceServer({
          issuer: 'https://as.example',
          introspection: { ...introspection, perSourceBurst: 0 },
        }),
      /introspection.perSourceBurst must be an integer >= 1, got 0/,
    );
  });
});
