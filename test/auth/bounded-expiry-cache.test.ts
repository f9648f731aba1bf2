/**
 * The verified-token cache: an entry lives until its expiry and no longer, and past its bound the
 * oldest entry goes, so a flood of distinct tokens cannot grow memory.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BoundedExpiryCache, tokenDigest } from '../../lib/auth/bounded-expiry-cache.js';

describe('BoundedExpiryCache', () => {
  it('keeps an entry until its expiry, then forgets it', () => {
    const cache = new BoundedExpiryCache<string>(10);
    cache.set('a', 'A', 2_000, 1_000);
    assert.equal(cache.get('a', 1_999), 'A');
    assert.equal(cache.get('a', 2_000), undefined);
    assert.equal(cache.size, 0);
    cache.set('b', 'B', 500, 1_000);
    assert.equal(cache.get('b', 400), undefined, 'an entry already expired is not kept');
  });

  it('evicts the oldest entry past its bound', () => {
    const cache = new BoundedExpiryCache<number>(3);
    for (let index = 0; index < 5; index++) cache.set(`k${index}`, index, 10_000, 0);
    assert.equal(cache.size, 3);
    assert.equal(cache.get('k0', 1), undefined);
    assert.equal(cache.get('k1', 1), undefined);
    assert.deepEqual([cache.get('k2', 1), cache.get('k3', 1), cache.get('k4', 1)], [2, 3, 4]);
  });

  it('keys by a digest, never by the token itself', () => {
    const token = 'eyJ.secret.token';
    assert.ok(!tokenDigest(token).includes('secret'));
    assert.equal(tokenDigest(token), tokenDigest(token));
    assert.notEqual(tokenDigest(token), tokenDigest(`${token}x`));
  });
});
