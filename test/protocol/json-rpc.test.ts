import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classify } from '../../lib/protocol/json-rpc.js';
import { negotiateVersion } from '../../lib/protocol/versions.js';

describe('classify', () => {
  it('recognises requests, notifications and responses', () => {
    assert.equal(classify({ jsonrpc: '2.0', id: 1, method: 'ping' }).kind, 'request');
    assert.equal(classify({ jsonrpc: '2.0', id: 'a', method: 'ping', params: {} }).kind, 'request');
    assert.equal(classify({ jsonrpc: '2.0', method: 'notifications/initialized' }).kind, 'notification');
    assert.equal(classify({ jsonrpc: '2.0', id: 1, result: {} }).kind, 'response');
  });

  it('answers malformed messages with -32600, keeping a usable id and null otherwise', () => {
    const cases: [unknown, unknown][] = [
      [42, null],
      [null, null],
      [{ id: 7, method: 'ping' }, 7],
      [{ jsonrpc: '1.0', id: 'x', method: 'ping' }, 'x'],
      [{ jsonrpc: '2.0', id: 3, method: 12 }, 3],
      [{ jsonrpc: '2.0', id: 4, method: 'ping', params: [1, 2] }, 4],
      [{ jsonrpc: '2.0', id: null, method: 'ping' }, null],
      [{ jsonrpc: '2.0', id: { nested: true }, method: 'ping' }, null],
      [{ jsonrpc: '2.0', id: 5 }, 5],
    ];
    for (const [value, id] of cases) {
      const classified = classify(value);
      assert.equal(classified.kind, 'invalid', JSON.stringify(value));
      if (classified.kind === 'invalid') {
        assert.equal(classified.id, id);
        assert.equal(classified.error.code, -32600);
      }
    }
  });
});

describe('negotiateVersion', () => {
  it('echoes a supported version and offers the latest otherwise', () => {
    for (const version of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']) {
      assert.equal(negotiateVersion(version), version);
    }
    assert.equal(negotiateVersion('1999-01-01'), '2025-11-25');
    assert.equal(negotiateVersion(undefined), '2025-11-25');
  });
});
