/**
 * Item 2 of the hardening issue: a resource URI is matched against the templates in linear time
 * whatever the template, and a URI longer than the cap is refused with -32602 naming the limit.
 * `app://{owner}.{repo}` compiled to the backtracking regex `([^/]+?)\.([^/]+?)$` took 0.42 s for
 * `app://` + 32,000 dots + `/`, growing with the square of the length (the cube with three variables).
 *
 * The property tests hold the matcher to the old regex's answers on ordinary URIs (the regex is kept
 * here as the reference), and to a time bound on adversarial URIs of 100,000 characters, run under a
 * vm timeout so a match that backtracks is stopped and reported rather than left to hang the suite.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { McpServer } from '../../lib/index.js';
import { UriTemplate } from '../../lib/resources/uri-template.js';
import { InProcessClient } from '../support/in-process-client.js';

/** The semantics weft has always had: `{name}` is a lazy run of non-"/" characters. */
function referenceMatch(template: string, uri: string): Record<string, string> | undefined {
  const names: string[] = [];
  const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const source = template
    .split(/(\{[A-Za-z0-9_]+\})/)
    .map((part) => {
      if (!/^\{[A-Za-z0-9_]+\}$/.test(part)) return escaped(part);
      names.push(part.slice(1, -1));
      return '([^/]+?)';
    })
    .join('');
  const found = new RegExp(`^${source}$`).exec(uri);
  if (!found) return undefined;
  const values: Record<string, string> = {};
  names.forEach((name, index) => {
    const raw = found[index + 1]!;
    try {
      values[name] = decodeURIComponent(raw);
    } catch {
      values[name] = raw;
    }
  });
  return values;
}

/** Characters that make matching ambiguous: the separators templates use, and "/" that stops a run. */
const ALPHABET = ['a', 'b', '.', '-', '/', ':', '%', '2'];
const literal = fc.string({ unit: fc.constantFrom(...ALPHABET), maxLength: 4 });
const template = fc
  .tuple(literal, fc.array(literal, { maxLength: 4 }))
  .map(([head, rest]) => head + rest.map((text, index) => `{v${index}}${text}`).join(''));

/** `match` under a watchdog: a backtracking match is interrupted and reported, not waited for. */
function matchWithin(ms: number, template: UriTemplate, uri: string): { ms: number; timedOut: boolean } {
  const start = performance.now();
  try {
    runInNewContext('run()', { run: () => template.match(uri) }, { timeout: ms });
    return { ms: performance.now() - start, timedOut: false };
  } catch (error) {
    if ((error as { code?: string }).code !== 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw error;
    return { ms: performance.now() - start, timedOut: true };
  }
}

describe('security: URI templates match in linear time', () => {
  it('agrees with the lazy-regex semantics on ordinary URIs, random templates', () => {
    const uri = fc.string({ unit: fc.constantFrom(...ALPHABET), maxLength: 24 });
    fc.assert(
      fc.property(template, fc.array(uri, { minLength: 1, maxLength: 8 }), (text, uris) => {
        const compiled = new UriTemplate(text);
        // URIs built from the template itself, so that most of them match (often several ways).
        const expanded = uris.map((value, index) =>
          text.replace(/\{[A-Za-z0-9_]+\}/g, () => uris[(index + 1) % uris.length] || value || 'a'),
        );
        for (const candidate of [...uris, ...expanded]) {
          assert.deepEqual(
            compiled.match(candidate),
            referenceMatch(text, candidate),
            `${text} on ${candidate}`,
          );
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('answers adversarial 100,000-character URIs within a generous bound, random templates', () => {
    const BOUND_MS = 1000;
    fc.assert(
      fc.property(
        template.filter((text) => text.includes('{')),
        fc.constantFrom(...ALPHABET.filter((char) => char !== '/')),
        fc.constantFrom('/', '', 'x'),
        (text, filler, ending) => {
          const compiled = new UriTemplate(text);
          const head = text.slice(0, text.indexOf('{'));
          // A long run of one separator, then an ending that makes every split fail at the last step.
          const uri = head + filler.repeat(100_000 - head.length - ending.length) + ending;
          const { ms, timedOut } = matchWithin(BOUND_MS, compiled, uri);
          assert.ok(
            !timedOut,
            `${text} on ${filler} x 100,000 + ${JSON.stringify(ending)}: over ${BOUND_MS} ms`,
          );
          assert.ok(ms < BOUND_MS, `${text}: ${ms.toFixed(0)} ms`);
        },
      ),
      { numRuns: 40, endOnFailure: true },
    );
  });

  it('app://{owner}.{repo}.{name} on app:// + 100,000 dots + / is answered at once', () => {
    const compiled = new UriTemplate('app://{owner}.{repo}.{name}');
    const { ms, timedOut } = matchWithin(1000, compiled, `app://${'.'.repeat(100_000)}/`);
    assert.ok(!timedOut && ms < 1000, `took ${ms.toFixed(0)} ms`);
    assert.deepEqual(compiled.match('app://a.b.c.d'), { owner: 'a', repo: 'b', name: 'c.d' });
  });
});

describe('security: a URI longer than the cap is refused', () => {
  let server: McpServer;
  let client: InProcessClient;
  before(async () => {
    server = new McpServer({ name: 'uri-cap', version: '1' }).resourceTemplate({
      uriTemplate: 'app://{owner}.{repo}',
      name: 'repo',
      read: (_uri, { owner, repo }) => `${owner}/${repo}`,
    });
    client = new InProcessClient(server);
    await client.request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'uri-cap', version: '1' },
    });
  });
  after(() => server.close());

  const long = `app://${'.'.repeat(32_000)}/`;
  for (const method of ['resources/read', 'resources/subscribe']) {
    it(`${method} of app:// + 32,000 dots + / is -32602 naming the limit`, async () => {
      const reply = await client.request(method, { uri: long });
      assert.equal(reply.error?.code, -32602, JSON.stringify(reply));
      assert.match(reply.error!.message, /32007 characters long.*at most \d+/);
    });
  }

  it('a URI within the cap still reads', async () => {
    const reply = await client.request('resources/read', { uri: 'app://weft.core' });
    assert.deepEqual((reply.result as { contents: { text: string }[] }).contents[0]!.text, 'weft/core');
  });
});
