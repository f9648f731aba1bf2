/**
 * Values a handler can return that must never reach the wire as they are: ones JSON cannot encode
 * (BigInt, cycles, throwing getters and `toJSON`, deep nesting, functions, symbols, hostile
 * proxies) and JSON that is not a valid CallToolResult. One tool per executor returns the kind it
 * is asked for, so the same catalogue runs inline, in a pool thread and in a pool process.
 *
 * Each kind says what the `isError` answer must name. Where a thread or process boundary changes
 * what goes wrong first (a function cannot be cloned, so a `toJSON` method never arrives), the kind
 * says so per side: `inline` and `worker`.
 */
import { type DefinedTool, defineTool } from '../../lib/tool.js';

export interface UnsendableKind {
  make(): unknown;
  /** What the answer's text must match, inline and after a thread or process boundary. */
  says: { inline: RegExp; worker: RegExp };
}

const same = (pattern: RegExp) => ({ inline: pattern, worker: pattern });
const text = (value: string) => [{ type: 'text', text: value }];

function nested(depth: number): unknown {
  let value: unknown[] = [];
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

export const UNSENDABLE: Record<string, UnsendableKind> = {
  'bigint-structured': {
    make: () => ({ content: text('counted'), structuredContent: { count: 2n ** 64n } }),
    says: same(/cannot be sent as JSON: a BigInt at structuredContent\.count/),
  },
  'bigint-data': {
    make: () => ({ totals: [1, 2, 3n] }),
    says: same(/cannot be sent as JSON: a BigInt at totals\[2\]/),
  },
  'bigint-top': { make: () => 7n, says: same(/cannot be sent as JSON: a BigInt at the top level/) },
  cycle: {
    make: () => {
      const node: Record<string, unknown> = { name: 'a' };
      node.self = node;
      return { content: text('a graph'), structuredContent: node };
    },
    says: same(/cannot be sent as JSON: it refers to itself .*property 'self' closes the circle/),
  },
  'cycle-data': {
    make: () => {
      const list: unknown[] = [1];
      list.push({ back: list });
      return list;
    },
    says: same(/cannot be sent as JSON: it refers to itself/),
  },
  'throwing-getter': {
    make: () => ({
      content: text('x'),
      structuredContent: {
        get secret(): string {
          throw new Error('the getter broke on purpose');
        },
      },
    }),
    says: same(/cannot be sent as JSON: .*the getter broke on purpose/),
  },
  'throwing-toJSON': {
    make: () => ({
      when: {
        toJSON() {
          throw new Error('toJSON broke on purpose');
        },
      },
    }),
    says: { inline: /cannot be sent as JSON: .*toJSON broke on purpose/, worker: /cannot be sent.*cloned/ },
  },
  'deep-nesting': {
    make: () => ({ content: text('deep'), structuredContent: { tree: nested(50_000) } }),
    says: same(/cannot be sent as JSON: it is nested too deeply/),
  },
  function: {
    make: () => () => 'a function',
    says: same(/cannot be sent as JSON: .*function/),
  },
  symbol: { make: () => Symbol('not data'), says: same(/cannot be sent as JSON: .*symbol/) },
  'function-as-text': {
    make: () => ({ content: [{ type: 'text', text: () => 'hi' }] }),
    says: {
      inline: /invalid CallToolResult: content\[0\] \(text\) needs "text" as a string, got a function/,
      worker: /cannot be sent.*cloned/,
    },
  },
  'hostile-proxy': {
    make: () =>
      new Proxy(
        { content: text('x') },
        {
          // Only `content`: a trap that throws on every key fails already where the call awaits
          // the handler's value (reading its `then`), which is an ordinary tool error.
          get(target, key) {
            if (key === 'content') throw new Error('the proxy trap broke on purpose');
            return Reflect.get(target, key);
          },
        },
      ),
    says: {
      inline: /cannot be sent as JSON: .*the proxy trap broke on purpose/,
      worker: /cannot be sent.*cloned/,
    },
  },
  'unknown-block-type': {
    make: () => ({ content: [{ type: 'video', uri: 'file:///a.mp4' }] }),
    says: same(/invalid CallToolResult: content\[0\] has type "video"/),
  },
  'text-without-text': {
    make: () => ({ content: [{ type: 'text' }] }),
    says: same(/invalid CallToolResult: content\[0\] \(text\) needs "text" as a string, got nothing/),
  },
  'bigint-as-text': {
    make: () => ({ content: [{ type: 'text', text: 5n }] }),
    says: same(/invalid CallToolResult: content\[0\] \(text\) needs "text" as a string, got a bigint/),
  },
  'image-without-mime': {
    make: () => ({ content: [{ type: 'image', data: 'AAAA' }] }),
    says: same(/invalid CallToolResult: content\[0\] \(image\) needs "mimeType"/),
  },
  'content-not-array': {
    make: () => ({ content: 'just a string' }),
    says: same(/invalid CallToolResult: "content" must be an array of content blocks, got a string/),
  },
  'structured-not-object': {
    make: () => ({ content: [], structuredContent: [1, 2] }),
    says: same(
      /invalid CallToolResult: "structuredContent" must be a JSON object when present, got an array/,
    ),
  },
  'isError-not-boolean': {
    make: () => ({ content: [], isError: 'maybe' }),
    says: same(/invalid CallToolResult: "isError" must be true or false/),
  },
};

export const UNSENDABLE_KINDS = Object.keys(UNSENDABLE);

const kindArgs = {
  type: 'object',
  properties: { kind: { type: 'string', enum: UNSENDABLE_KINDS } },
  required: ['kind'],
  additionalProperties: false,
} as const;

function returnKind({ kind }: { kind: string }): unknown {
  return UNSENDABLE[kind]!.make();
}

export const unsendableInline = defineTool({
  name: 'unsendable_inline',
  description: 'Returns the unsendable value it is asked for, on the event loop.',
  inputSchema: kindArgs,
  handler: returnKind,
});

export const unsendableThread = defineTool({
  name: 'unsendable_thread',
  description: 'Returns the unsendable value it is asked for, from a pool thread.',
  inputSchema: kindArgs,
  blocking: true,
  module: import.meta.url,
  export: 'unsendableThread',
  handler: returnKind,
});

export const unsendableProcess = defineTool({
  name: 'unsendable_process',
  description: 'Returns the unsendable value it is asked for, from a pool process.',
  inputSchema: kindArgs,
  blocking: true,
  isolation: 'process',
  module: import.meta.url,
  export: 'unsendableProcess',
  handler: returnKind,
});

/** The three tools and which side of a boundary each runs on. */
export const UNSENDABLE_TOOLS: Array<{ tool: DefinedTool; side: 'inline' | 'worker' }> = [
  { tool: unsendableInline as DefinedTool, side: 'inline' },
  { tool: unsendableThread as DefinedTool, side: 'worker' },
  { tool: unsendableProcess as DefinedTool, side: 'worker' },
];

/**
 * A random result for the router property test: JSON data (`base`) with one poison planted in it,
 * shaped as plain data, as structuredContent, or as a content block's fields. Generated as JSON (so
 * it travels as a call's arguments) and built into the hostile value by the handler.
 */
export interface Recipe {
  base: unknown;
  poison: 'none' | 'bigint' | 'cycle' | 'getter' | 'toJSON' | 'function' | 'symbol' | 'proxy' | 'deep';
  shape: 'data' | 'structured' | 'block' | 'content';
  /** The block's type when shape is 'block' (any string: known types and unknown ones). */
  blockType: string;
}

export const POISONS: Recipe['poison'][] = [
  'none',
  'bigint',
  'cycle',
  'getter',
  'toJSON',
  'function',
  'symbol',
  'proxy',
  'deep',
];

function poisonValue(poison: Recipe['poison'], holder: Record<string, unknown>): unknown {
  switch (poison) {
    case 'none':
      return 'plain';
    case 'bigint':
      return 12345678901234567890n;
    case 'cycle':
      return holder;
    case 'getter':
      return {
        get broken(): never {
          throw new Error('a getter broke');
        },
      };
    case 'toJSON':
      return {
        toJSON(): never {
          throw new Error('a toJSON broke');
        },
      };
    case 'function':
      return () => 'fn';
    case 'symbol':
      return Symbol('s');
    case 'proxy':
      return new Proxy(
        {},
        {
          ownKeys() {
            throw new Error('a proxy trap broke');
          },
        },
      );
    case 'deep':
      return nested(50_000);
  }
}

export function buildRecipe({ base, poison, shape, blockType }: Recipe): unknown {
  const holder: Record<string, unknown> = { base };
  holder.poison = poisonValue(poison, holder);
  switch (shape) {
    case 'data':
      return holder;
    case 'structured':
      return { content: text('x'), structuredContent: holder };
    case 'block':
      return { content: [{ ...holder, type: blockType }] };
    case 'content':
      return { content: base };
  }
}

const recipeArgs = { type: 'object' } as const;

export const recipeInline = defineTool({
  name: 'recipe_inline',
  description: 'Returns the value a recipe describes, on the event loop.',
  inputSchema: recipeArgs,
  handler: (args) => buildRecipe(args as unknown as Recipe),
});

export const recipeThread = defineTool({
  name: 'recipe_thread',
  description: 'Returns the value a recipe describes, from a pool thread.',
  inputSchema: recipeArgs,
  blocking: true,
  module: import.meta.url,
  export: 'recipeThread',
  handler: (args) => buildRecipe(args as unknown as Recipe),
});
