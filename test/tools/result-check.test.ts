/**
 * The CallToolResult shape check against the official SDK's own schema, as an oracle: over random
 * results, built from valid blocks of every type and then damaged at random, the check and the
 * SDK's `CallToolResultSchema` agree. So a result weft lets through is one the SDK client accepts,
 * and a result the SDK client accepts is never refused by weft.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { callToolResultProblem } from '../../lib/tools/result-check.js';

const str = fc.string({ maxLength: 8 });
const meta = fc.option(fc.dictionary(str, fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }), { nil: undefined });

const annotations = fc.option(
  fc.record(
    {
      audience: fc.array(fc.constantFrom('user', 'assistant'), { maxLength: 2 }),
      priority: fc.double({ min: 0, max: 1, noNaN: true }),
    },
    { requiredKeys: [] },
  ),
  { nil: undefined },
);

const validBlock = fc.oneof(
  fc.record(
    { type: fc.constant('text'), text: str, _meta: meta, annotations },
    { requiredKeys: ['type', 'text'] },
  ),
  fc.record({
    type: fc.constantFrom('image', 'audio'),
    data: fc.base64String({ maxLength: 12 }),
    mimeType: str,
  }),
  fc.record(
    {
      type: fc.constant('resource_link'),
      uri: str,
      name: str,
      title: str,
      description: str,
      mimeType: str,
      size: fc.nat(),
      icons: fc.array(fc.record({ src: str }), { maxLength: 1 }),
    },
    { requiredKeys: ['type', 'uri', 'name'] },
  ),
  fc.record({
    type: fc.constant('resource'),
    resource: fc.oneof(
      fc.record({ uri: str, text: str, mimeType: str }, { requiredKeys: ['uri', 'text'] }),
      fc.record({ uri: str, blob: fc.base64String({ maxLength: 12 }) }),
    ),
  }),
);

const anyValue = fc.oneof(
  fc.jsonValue({ maxDepth: 1 }),
  fc.constantFrom(
    { audience: ['user'] },
    { audience: ['robot'] },
    { priority: 0.5 },
    { priority: 2 },
    [{ src: 'a' }],
    [{}],
  ),
  fc.constant(undefined),
  fc.constantFrom('video', 'TEXT', ''),
);

/** Damages a result: deletes or replaces one field of one block, of its resource, or of the result. */
const damage = fc.record({
  where: fc.constantFrom('block', 'result', 'resource'),
  index: fc.nat(),
  key: fc.constantFrom(
    'type',
    'text',
    'data',
    'mimeType',
    'uri',
    'name',
    'title',
    'blob',
    'resource',
    'content',
    'structuredContent',
    'isError',
    '_meta',
    'annotations',
    'size',
    'icons',
  ),
  value: anyValue,
});

interface Damage {
  where: 'block' | 'result' | 'resource';
  index: number;
  key: string;
  value: unknown;
}

function apply(result: Record<string, unknown>, hurt: Damage) {
  const content = result.content as Array<Record<string, unknown>>;
  const set = (target: Record<string, unknown>, key: string, value: unknown) => {
    if (value === undefined) delete target[key];
    // A copy: constants are shared between runs, and a later damage could write into this one.
    else target[key] = structuredClone(value);
  };
  const { key } = hurt;
  if (hurt.where === 'result') set(result, key, hurt.value);
  else if (Array.isArray(content) && content.length > 0) {
    const block = content[hurt.index % content.length];
    if (typeof block !== 'object' || block === null) return result;
    if (hurt.where === 'block') set(block, key, hurt.value);
    else if (typeof block.resource === 'object' && block.resource !== null)
      set(block.resource as Record<string, unknown>, key, hurt.value);
  }
  return result;
}

test('the shape check and the SDK schema agree on random, damaged results', () => {
  let accepted = 0;
  let refused = 0;
  fc.assert(
    fc.property(
      fc.array(validBlock, { maxLength: 4 }),
      fc.option(fc.dictionary(str, fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }), { nil: undefined }),
      fc.option(fc.boolean(), { nil: undefined }),
      fc.array(damage, { maxLength: 3 }),
      (blocks, structuredContent, isError, damages) => {
        const result: Record<string, unknown> = { content: structuredClone(blocks) };
        if (structuredContent !== undefined) result.structuredContent = structuredContent;
        if (isError !== undefined) result.isError = isError;
        for (const hurt of damages) apply(result, hurt);
        if (!('content' in result)) return; // not a CallToolResult at all: weft sends it as data
        const ours = callToolResultProblem(result);
        const sdk = CallToolResultSchema.safeParse(result).success;
        if (ours === undefined) accepted++;
        else refused++;
        assert.equal(
          ours === undefined,
          sdk,
          `weft says ${ours ?? 'valid'}, the SDK says ${sdk ? 'valid' : 'invalid'}: ${JSON.stringify(result)}`,
        );
      },
    ),
    { numRuns: 3000 },
  );
  assert.ok(accepted > 400 && refused > 400, `accepted ${accepted}, refused ${refused}: too one-sided`);
});

const atobAccepts = (text: string) => {
  try {
    atob(text);
    return true;
  } catch {
    return false;
  }
};

test('the base64 check (a character scan) accepts exactly what atob accepts', () => {
  const accepts = atobAccepts;
  const chars = fc.constantFrom(...'AZaz09+/=- \n\t_.\u0141'.split(''));
  fc.assert(
    fc.property(fc.array(chars, { maxLength: 14 }), (letters) => {
      const data = letters.join('');
      const problem = callToolResultProblem({ content: [{ type: 'image', data, mimeType: 'image/png' }] });
      assert.equal(problem === undefined, accepts(data), `${JSON.stringify(data)}: ${problem}`);
    }),
    { numRuns: 5000 },
  );
});

test('the base64 check agrees with atob on texts of several chunks, one character changed anywhere', () => {
  // The check decodes 65,536 characters at a time: a change at, before or after a chunk's edge
  // must be seen wherever it falls.
  const plain = Buffer.from(Array.from({ length: 150_000 }, (_, i) => (i * 7919) % 256)).toString('base64');
  const edges = [0, 1, 65_535, 65_536, 65_537, 131_071, 131_072, plain.length - 2, plain.length - 1];
  const at = fc.oneof(fc.constantFrom(...edges), fc.nat({ max: plain.length - 1 }));
  const chars = fc.constantFrom(...'A+/=- \n_.*\u00e9\u4e00\u0141\u012b'.split(''));
  fc.assert(
    fc.property(at, chars, fc.boolean(), (index, char, insert) => {
      const data = plain.slice(0, index) + char + plain.slice(insert ? index : index + 1);
      const problem = callToolResultProblem({ content: [{ type: 'image', data, mimeType: 'image/png' }] });
      assert.equal(
        problem === undefined,
        atobAccepts(data),
        `${char} at ${index}${insert ? ' inserted' : ''}`,
      );
    }),
    { numRuns: 300 },
  );
  assert.equal(
    callToolResultProblem({ content: [{ type: 'image', data: plain, mimeType: 'image/png' }] }),
    undefined,
  );
});
