/**
 * The era facts in lib/protocol: which era a message belongs to, the order in which a modern
 * envelope is checked (what clients and the conformance suite rely on), the era's method table,
 * and the HTTP status each error gets.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eraOf, META, MODERN_METHODS, readModernEnvelope } from '../../lib/protocol/eras.js';
import { httpStatusFor } from '../../lib/protocol/http-status.js';
import { ProtocolError } from '../../lib/protocol/protocol-error.js';

const codeOf = (run: () => unknown): number | undefined => {
  try {
    run();
  } catch (error) {
    return error instanceof ProtocolError ? error.code : undefined;
  }
  return undefined;
};

describe('eraOf', () => {
  it('is modern for a _meta naming a version and for server/discover, legacy otherwise', () => {
    assert.equal(eraOf('tools/list', { _meta: { [META.protocolVersion]: 'anything' } }), 'modern');
    assert.equal(eraOf('server/discover', undefined), 'modern');
    assert.equal(eraOf('initialize', { protocolVersion: '2025-11-25' }), 'legacy');
    assert.equal(eraOf('tools/list', { _meta: { progressToken: 1 } }), 'legacy');
    assert.equal(eraOf('tools/list', undefined), 'legacy');
  });
});

describe('readModernEnvelope', () => {
  const meta = (extra: Record<string, unknown> = {}) => ({
    _meta: { [META.protocolVersion]: '2026-07-28', [META.clientCapabilities]: {}, ...extra },
  });

  it('reads version, capabilities, clientInfo and logLevel', () => {
    const envelope = readModernEnvelope(
      meta({
        [META.clientInfo]: { name: 'c', version: '1' },
        [META.logLevel]: 'error',
        [META.clientCapabilities]: { sampling: {} },
      }),
    );
    assert.deepEqual(envelope, {
      version: '2026-07-28',
      clientCapabilities: { sampling: {} },
      clientInfo: { name: 'c', version: '1' },
      logLevel: 'error',
    });
  });

  it('checks in order: _meta and its required keys (-32602) before the version (-32022)', () => {
    assert.equal(
      codeOf(() => readModernEnvelope(undefined)),
      -32602,
    );
    assert.equal(
      codeOf(() => readModernEnvelope({ _meta: [] })),
      -32602,
    );
    // A missing capabilities object is reported even when the version is unsupported too.
    assert.equal(
      codeOf(() => readModernEnvelope({ _meta: { [META.protocolVersion]: '1999-01-01' } })),
      -32602,
    );
    assert.equal(
      codeOf(() => readModernEnvelope(meta({ [META.clientCapabilities]: null }))),
      -32602,
    );
    assert.equal(
      codeOf(() => readModernEnvelope(meta({ [META.protocolVersion]: 20260728 }))),
      -32602,
    );
    assert.equal(
      codeOf(() => readModernEnvelope(meta({ [META.protocolVersion]: '2025-11-25' }))),
      -32022,
    );
    assert.equal(
      codeOf(() => readModernEnvelope(meta({ [META.logLevel]: 'loud' }))),
      -32602,
    );
    assert.equal(
      codeOf(() => readModernEnvelope(meta({ [META.logLevel]: 'debug' }))),
      undefined,
    );
  });

  it('names the supported versions and the requested one in -32022', () => {
    try {
      readModernEnvelope(meta({ [META.protocolVersion]: 'v999' }));
      assert.fail('expected -32022');
    } catch (error) {
      assert.deepEqual((error as ProtocolError).data, { supported: ['2026-07-28'], requested: 'v999' });
    }
  });
});

describe('the modern method table', () => {
  it('holds the schema ClientRequest methods, the tasks and skills extensions, nine of them cacheable', () => {
    assert.deepEqual([...MODERN_METHODS.keys()].sort(), [
      'completion/complete',
      'prompts/get',
      'prompts/list',
      'resources/directory/read',
      'resources/list',
      'resources/read',
      'resources/templates/list',
      'server/discover',
      'skills/get',
      'skills/list',
      'subscriptions/listen',
      'tasks/cancel',
      'tasks/get',
      'tasks/update',
      'tools/call',
      'tools/list',
    ]);
    const cacheable = [...MODERN_METHODS].filter(([, rule]) => rule.cacheable).map(([method]) => method);
    assert.deepEqual(cacheable.sort(), [
      'prompts/list',
      'resources/directory/read',
      'resources/list',
      'resources/read',
      'resources/templates/list',
      'server/discover',
      'skills/get',
      'skills/list',
      'tools/list',
    ]);
  });
});

describe('httpStatusFor', () => {
  it('keeps legacy errors in-band, routes modern request errors to 4xx and handler errors in-band', () => {
    assert.equal(httpStatusFor('legacy', -32601), 200);
    assert.equal(httpStatusFor('modern', -32601), 404);
    assert.equal(httpStatusFor('modern', -32022), 400);
    assert.equal(httpStatusFor('modern', -32602, true), 400);
    assert.equal(httpStatusFor('modern', -32602), 200);
    assert.equal(httpStatusFor('modern', -32603), 200);
  });
});
