/**
 * `Router.knows(method, era)`: what a transport asks before dispatching (HTTP answers 404 for a
 * false). Each era has its own methods, and a modern method whose capability the server does not
 * advertise does not exist.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Router } from '../../lib/router/router.js';

function routerWith(capabilities: Record<string, unknown>): Router {
  const router = new Router({
    logError: () => {},
    identity: { serverInfo: { name: 'r', version: '1' }, capabilities: () => capabilities },
  });
  for (const method of [
    'initialize',
    'ping',
    'logging/setLevel',
    'resources/subscribe',
    'server/discover',
    'subscriptions/listen',
    'tools/list',
    'tools/call',
    'prompts/list',
    'resources/read',
    'completion/complete',
  ]) {
    router.method(method, () => ({}));
  }
  return router;
}

describe('Router.knows', () => {
  it('gives the legacy era every registered method except the modern-only ones', () => {
    const router = routerWith({ tools: {} });
    for (const method of ['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'tools/call']) {
      assert.equal(router.knows(method, 'legacy'), true, method);
    }
    assert.equal(router.knows('server/discover', 'legacy'), false);
    assert.equal(router.knows('subscriptions/listen', 'legacy'), false);
    assert.equal(router.knows('never/registered', 'legacy'), false);
  });

  it('gives the modern era only its own methods, and only those whose capability is advertised', () => {
    const router = routerWith({ tools: {}, prompts: {} });
    for (const method of [
      'server/discover',
      'subscriptions/listen',
      'tools/list',
      'tools/call',
      'prompts/list',
    ]) {
      assert.equal(router.knows(method, 'modern'), true, method);
    }
    for (const method of ['initialize', 'ping', 'logging/setLevel', 'resources/subscribe']) {
      assert.equal(router.knows(method, 'modern'), false, method);
    }
    assert.equal(router.knows('resources/read', 'modern'), false, 'no resources capability');
    assert.equal(router.knows('completion/complete', 'modern'), false, 'no completions capability');
    assert.equal(router.knows('resources/templates/list', 'modern'), false, 'not registered');
  });

  it('follows the capabilities as they change', () => {
    const capabilities: Record<string, unknown> = { tools: {} };
    const router = routerWith(capabilities);
    assert.equal(router.knows('prompts/list', 'modern'), false);
    capabilities.prompts = { listChanged: true };
    assert.equal(router.knows('prompts/list', 'modern'), true);
  });
});
