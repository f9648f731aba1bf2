/**
 * The same tool written with zod and with JSON Schema is the same tool: the published inputSchema,
 * the verdict on any arguments (checked on hundreds of generated ones), the answers both official
 * clients get in both eras, and the handler's argument type, which is checked by the compiler: the
 * `sameArgs` line below stops compiling when the two inferred types differ.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttp,
} from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import fc from 'fast-check';
import { McpServer } from '../../lib/index.js';
import { defineTool } from '../../lib/tool.js';
import { SchemaCompiler } from '../../lib/tools/schema-compiler.js';
import { ToolRegistry } from '../../lib/tools/tool-registry.js';
import { jsonRank, zodRank } from './rank-tools.js';

/** True only when A and B are the same type (not merely assignable one way). */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** The first parameter of a definition's handler: the argument type weft inferred for it. */
type HandlerArgs<T> = T extends { handler?: (args: infer A, ...rest: never[]) => unknown } ? A : never;

// The type test: both definitions give their handler the very same argument type.
const sameArgs: Same<HandlerArgs<typeof zodRank>, HandlerArgs<typeof jsonRank>> = true;
// And the comparison can fail: a JSON Schema that leaves `top` optional is told apart.
const looser = defineTool({
  name: 'rank_looser',
  inputSchema: { ...jsonRank.inputSchema, required: ['words'] },
  handler: () => '',
});
// @ts-expect-error `top` is optional here and required in the zod schema: the types differ.
const differentArgs: Same<HandlerArgs<typeof zodRank>, HandlerArgs<typeof looser>> = true;

const withoutDialect = ({ $schema: _dialect, ...schema }: Record<string, unknown>) => schema;

describe('one tool, defined with zod and with JSON Schema', () => {
  it('infers the same handler argument type (checked at compile time, above)', () => {
    assert.equal(sameArgs, true);
    assert.equal(differentArgs, true);
  });

  it('gives the same verdict as the JSON Schema on any arguments, and passes valid ones unchanged', async () => {
    const registry = new ToolRegistry(new SchemaCompiler());
    const zod = registry.add(zodRank as never);
    const json = registry.add(jsonRank as never);
    const word = fc.oneof(
      fc.string({ minLength: 1, maxLength: 5 }),
      fc.constant(''),
      fc.integer(),
      fc.constant(null),
    );
    // Mostly near-valid arguments, each part sometimes wrong or missing, sometimes an extra key;
    // undefined parts disappear in the JSON round trip below, as a missing key.
    const sometimes = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { freq: 8, nil: undefined });
    const args = fc.record({
      words: sometimes(
        fc.oneof(
          {
            weight: 5,
            arbitrary: fc.array(fc.string({ minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 50 }),
          },
          { weight: 1, arbitrary: fc.array(word, { maxLength: 52 }) },
          { weight: 1, arbitrary: fc.oneof(fc.string(), fc.constant(null), fc.integer()) },
        ),
      ),
      top: sometimes(
        fc.oneof(
          { weight: 5, arbitrary: fc.integer({ min: -1, max: 11 }) },
          { weight: 1, arbitrary: fc.double({ min: -2, max: 12, noNaN: true }) },
          { weight: 1, arbitrary: fc.string({ maxLength: 2 }) },
        ),
      ),
      order: fc.option(
        fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom('asc', 'desc') },
          fc.constantFrom('up', '', 3, null),
        ),
        { freq: 2, nil: undefined },
      ),
      extra: fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, fc.jsonValue()),
    });
    const verdicts = { accepted: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(args, async (generated) => {
        // Arguments arrive parsed from JSON: plain objects (fast-check makes null-prototype ones).
        const value = JSON.parse(JSON.stringify(generated)) as unknown;
        const [byZod, byJson] = await Promise.all([zod.checkArguments(value), json.checkArguments(value)]);
        assert.equal(
          byZod.ok,
          byJson.ok,
          `zod says ${JSON.stringify(byZod)}, JSON Schema says ${JSON.stringify(byJson)}`,
        );
        if (byZod.ok) {
          assert.deepEqual(byZod.value, value);
          verdicts.accepted++;
        } else verdicts.refused++;
      }),
      { numRuns: 400 },
    );
    // Both verdicts were exercised, or the property proved nothing.
    assert.ok(verdicts.accepted >= 40 && verdicts.refused >= 40, JSON.stringify(verdicts));
  });

  describe('served, and called by the official clients in both eras', () => {
    let server: McpServer;
    let legacy: LegacyClient;
    let modern: ModernClient;
    before(async () => {
      server = new McpServer({ name: 'weft-zod-test', version: '0.0.0', pool: { maxThreads: 1 } });
      server.tool(zodRank).tool(jsonRank);
      await server.listen({ http: { port: 0, host: '127.0.0.1' } });
      const url = new URL(`http://127.0.0.1:${server.addresses.http!.port}/mcp`);
      legacy = new LegacyClient({ name: 'weft-zod-legacy', version: '1.0.0' });
      modern = new ModernClient(
        { name: 'weft-zod-modern', version: '1.0.0' },
        { versionNegotiation: { mode: { pin: '2026-07-28' } } },
      );
      await Promise.all([legacy.connect(new LegacyHttp(url)), modern.connect(new ModernHttp(url))]);
    });
    after(async () => {
      await Promise.all([legacy.close(), modern.close()]);
      await server.close();
    });

    it('publishes the same inputSchema (zod adds only the 2020-12 $schema) and an object outputSchema', async () => {
      for (const client of [legacy, modern]) {
        const { tools } = await client.listTools();
        const zod = tools.find((tool) => tool.name === 'rank_zod')!;
        const json = tools.find((tool) => tool.name === 'rank_json')!;
        assert.equal(zod.inputSchema.$schema, 'https://json-schema.org/draft/2020-12/schema');
        assert.deepEqual(withoutDialect(zod.inputSchema), json.inputSchema);
        assert.equal(zod.outputSchema?.type, 'object');
        assert.deepEqual(zod.outputSchema?.required, json.outputSchema?.required);
        assert.deepEqual(
          Object.keys(zod.outputSchema?.properties ?? {}),
          Object.keys(json.outputSchema?.properties ?? {}),
        );
      }
    });

    it('answers the same for valid arguments, through the pool', async () => {
      const args = { words: ['pear', 'fig', 'banana', 'kiwi'], top: 3, order: 'asc' };
      for (const client of [legacy, modern]) {
        const [zod, json] = await Promise.all([
          client.callTool({ name: 'rank_zod', arguments: args }),
          client.callTool({ name: 'rank_json', arguments: args }),
        ]);
        assert.equal(zod.isError, undefined);
        assert.deepEqual(zod.structuredContent, { top: ['fig', 'kiwi', 'pear'], count: 3 });
        assert.deepEqual(zod.structuredContent, json.structuredContent);
      }
    });

    it('refuses the same invalid arguments, the zod message naming the path', async () => {
      const cases = [
        { words: ['pear'], top: 0 },
        { words: [], top: 1 },
        { words: ['pear', ''], top: 1 },
        { words: ['pear'], top: 1, order: 'sideways' },
        { words: ['pear'], top: 1, colour: 'red' },
        { top: 1 },
      ];
      for (const client of [legacy, modern]) {
        for (const args of cases) {
          const [zod, json] = await Promise.all([
            client.callTool({ name: 'rank_zod', arguments: args }),
            client.callTool({ name: 'rank_json', arguments: args }),
          ]);
          assert.equal(zod.isError, true, JSON.stringify(args));
          assert.equal(json.isError, true, JSON.stringify(args));
        }
        const refused = await client.callTool({
          name: 'rank_zod',
          arguments: { words: ['pear', ''], top: 1 },
        });
        const text = (refused.content as { text: string }[])[0]!.text;
        assert.match(text, /^Invalid arguments for tool "rank_zod": "words\.1": /);
      }
    });
  });
});
