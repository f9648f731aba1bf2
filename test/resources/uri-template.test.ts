/**
 * URI templates: matching concrete URIs, decoding, expansion, and refusing what is not supported.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UriTemplate } from '../../lib/resources/uri-template.js';

describe('UriTemplate', () => {
  it('matches each variable up to the next literal and never across a slash', () => {
    const template = new UriTemplate('app://users/{id}/files/{name}.txt');
    assert.deepEqual(template.variables, ['id', 'name']);
    assert.deepEqual(template.match('app://users/42/files/notes.txt'), { id: '42', name: 'notes' });
    assert.equal(template.match('app://users/4/2/files/notes.txt'), undefined);
    assert.equal(template.match('app://users//files/notes.txt'), undefined);
    assert.equal(template.match('app://users/42/files/notes.md'), undefined);
  });

  it('decodes percent-encoding on match and encodes on expansion', () => {
    const template = new UriTemplate('app://search/{query}');
    assert.deepEqual(template.match('app://search/a%20b'), { query: 'a b' });
    assert.equal(template.expand({ query: 'a b/c' }), 'app://search/a%20b%2Fc');
  });

  it('treats regular-expression characters in literals as literals', () => {
    const template = new UriTemplate('app://x.y/{id}?');
    assert.deepEqual(template.match('app://x.y/1?'), { id: '1' });
    assert.equal(template.match('app://xzy/1?'), undefined);
  });

  it('refuses operators, repeated variables and unbalanced braces at construction', () => {
    assert.throws(() => new UriTemplate('app://{+path}'), /not supported/);
    assert.throws(() => new UriTemplate('app://{a}/{a}'), /twice/);
    assert.throws(() => new UriTemplate('app://{a'), /without a closing/);
    assert.throws(() => new UriTemplate('app://a}'), /without an opening/);
  });
});
