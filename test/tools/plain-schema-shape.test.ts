/**
 * The hand check that spares a server Ajv's meta-schema (lib/tools/plain-schema-shape.ts) must never
 * call a schema plainly valid that the 2020-12 meta-schema refuses: for random schema-like objects
 * made of the keywords it decides (with well- and ill-typed values, nested, beside unknown and
 * undecided keywords), whenever it says yes, Ajv's own meta-schema validation says yes too. And the
 * schemas tools really declare are decided by hand, or the start-up gains nothing.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { plainSchema } from '../../lib/tools/plain-schema-shape.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = new Ajv2020({ strict: false, validateFormats: true });
addFormats(ajv);

const anyValue = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.integer({ min: -3, max: 5 }),
  fc.double({ noNaN: true, min: -2, max: 2 }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.oneof(fc.string({ maxLength: 3 }), fc.integer()), { maxLength: 3 }),
  fc.constantFrom('object', 'string', 'integer', 'nonsense', '^a+$', '(', 'x\\Z'),
);

const schema: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.boolean(),
    fc.dictionary(
      fc.constantFrom(
        'type',
        'properties',
        'required',
        'items',
        'enum',
        'minimum',
        'maxLength',
        'multipleOf',
        'pattern',
        'format',
        'description',
        'additionalProperties',
        'anyOf',
        'prefixItems',
        'uniqueItems',
        'x-mcp-header',
        '$ref',
        'dependentRequired',
      ),
      fc.oneof(
        anyValue,
        tie('node'),
        fc.dictionary(fc.string({ maxLength: 3 }), tie('node'), { maxKeys: 2 }),
        fc.array(tie('node'), { maxLength: 2 }),
      ),
      { maxKeys: 4 },
    ),
  ),
})).node;

describe('plainSchema', () => {
  it('never accepts a schema the 2020-12 meta-schema refuses', () => {
    fc.assert(
      fc.property(schema, (candidate) => {
        if (plainSchema(candidate))
          assert.ok(ajv.validateSchema(candidate as boolean | object), ajv.errorsText());
      }),
      { numRuns: 3000 },
    );
  });

  it('decides the schemas tools declare by hand', () => {
    const declared = [
      { type: 'object', additionalProperties: false },
      {
        type: 'object',
        properties: {
          pattern: { type: 'string', maxLength: 1000 },
          flags: { type: 'string', pattern: '^[gimsuy]*$' },
          n: { type: 'integer', minimum: 0, maximum: 40, description: 'how many' },
          mode: { enum: ['a', 'b'], default: 'a' },
          tags: { type: 'array', items: { type: 'string' }, uniqueItems: true },
        },
        required: ['pattern'],
        additionalProperties: false,
      },
    ];
    for (const one of declared) assert.equal(plainSchema(one), true, JSON.stringify(one));
    assert.equal(plainSchema({ type: 'object', properties: { n: { type: 'nonsense' } } }), false);
    assert.equal(plainSchema({ type: 'object', required: 'n' }), false);
    assert.equal(plainSchema({ type: 'object', properties: { a: { $ref: '#/$defs/a' } } }), false);
  });
});
