/**
 * A pool thread's long result strings cross as their JSON bytes and stay bytes on the main thread
 * until read (lib/tools/moved-strings.ts): what leaves is the same JSON as the handler's value
 * would make, the result check does not turn the bytes back into a string, and any code that reads
 * or writes such a field (middleware, JSON.stringify, a copy) sees a plain string.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { McpServer } from '../../lib/index.js';
import { concatenated } from '../../lib/protocol/message-encoding.js';
import type { CallToolResult } from '../../lib/tools/content.js';
import {
  MOVED_STRING_MIN_CHARS,
  type MovedString,
  moveLongStrings,
  receiveMovedStrings,
} from '../../lib/tools/moved-strings.js';
import { callToolResultProblem } from '../../lib/tools/result-check.js';
import { encodeToolResult } from '../../lib/tools/result-encoding.js';
import { InProcessClient } from '../support/in-process-client.js';
import { longBase64, longText, movedBare, movedBinary, movedText } from './moved-string-tools.js';

const LONG = MOVED_STRING_MIN_CHARS + 5;
const DOCUMENT_LINE = 'A "quoted" line,\ta naïve café, a \\ backslash 😀.\n';

/** The value as the main thread receives it: moved out, posted with its bytes transferred, put back. */
function crossed(value: unknown): { result: CallToolResult; moved: readonly MovedString[] } {
  const out = moveLongStrings(value);
  const posted = structuredClone(out, { transfer: out.moved.map((string) => string.bytes) });
  receiveMovedStrings(posted.value, posted.moved);
  return { result: posted.value as CallToolResult, moved: posted.moved };
}

const isAccessor = (holder: object, field: string) =>
  typeof Object.getOwnPropertyDescriptor(holder, field)?.get === 'function';

describe('moved strings, in one process', () => {
  const cases: [string, () => CallToolResult][] = [
    ['a plain ASCII text', () => ({ content: [{ type: 'text', text: longText(LONG, 'plain words ') }] })],
    [
      'a document JSON must escape',
      () => ({ content: [{ type: 'text', text: longText(LONG, DOCUMENT_LINE) }] }),
    ],
    [
      'an image',
      () => ({ content: [{ type: 'image', data: longBase64(LONG - (LONG % 4)), mimeType: 'image/png' }] }),
    ],
    [
      "an embedded resource's text and another's blob",
      () => ({
        content: [
          { type: 'resource', resource: { uri: 'file:///a', text: longText(LONG, DOCUMENT_LINE) } },
          { type: 'resource', resource: { uri: 'file:///b', blob: longBase64(LONG - (LONG % 4)) } },
        ],
        structuredContent: { note: 'kept' },
      }),
    ],
  ];
  for (const [name, make] of cases) {
    it(`${name}: moved, checked without decoding, encoded as the handler's value`, () => {
      const original = make();
      const expected = JSON.stringify(original);
      const { result, moved } = crossed(original);
      assert.equal(moved.length, original.content.length, 'every long string was moved');
      assert.equal(JSON.stringify(original), expected, "the handler's own value is unchanged");
      assert.equal(callToolResultProblem(result as never), undefined);
      for (const block of result.content as unknown as Record<string, unknown>[]) {
        const holder = (block.resource ?? block) as object;
        assert.ok(
          ['text', 'data', 'blob'].some((field) => isAccessor(holder, field)),
          'still bytes after the check',
        );
      }
      const json = encodeToolResult(result);
      assert.ok(json.ok && json.pieces !== undefined);
      assert.ok(json.pieces.some(Buffer.isBuffer), 'the bytes are a piece of the answer');
      assert.equal(concatenated(json.pieces), expected);
      assert.equal(json.text, expected);
      // Read by anyone else, the fields are the handler's strings.
      assert.equal(JSON.stringify(result), expected);
      assert.deepEqual(structuredClone(result), original);
    });
  }

  it('a field read or written is a plain field from then on, and is encoded as it now is', () => {
    const { result } = crossed({ content: [{ type: 'text', text: longText(LONG, DOCUMENT_LINE) }] });
    const block = result.content[0] as { text: string };
    const text = block.text;
    assert.equal(text, longText(LONG, DOCUMENT_LINE));
    assert.ok(!isAccessor(block, 'text'));
    assert.equal(block.text, text, 'read twice, the same string');
    const json = encodeToolResult(result);
    assert.ok(json.ok);
    assert.ok(!json.pieces?.some(Buffer.isBuffer), 'a field read is encoded from its string');
    assert.equal(json.text, JSON.stringify({ content: [{ type: 'text', text }] }));

    const written = crossed({ content: [{ type: 'text', text: longText(LONG, 'x') }] }).result;
    (written.content[0] as { text: string }).text = 'changed by middleware';
    const rewritten = encodeToolResult(written);
    assert.ok(rewritten.ok);
    assert.equal(rewritten.text, '{"content":[{"type":"text","text":"changed by middleware"}]}');
  });

  it('what is not moved: short strings, a lone surrogate; odd base64 is still checked on the main thread', () => {
    assert.equal(moveLongStrings({ content: [{ type: 'text', text: 'short' }] }).moved.length, 0);
    const lone = { content: [{ type: 'text', text: `${longText(LONG, 'x')}\udc00` }] };
    assert.equal(moveLongStrings(lone).moved.length, 0, 'JSON.stringify writes a lone surrogate, not UTF-8');
    assert.equal(moveLongStrings('a bare string').moved.length, 0);

    // ASCII that JSON writes as it is, but not base64: moved, and the check still refuses it.
    const notBase64 = { content: [{ type: 'image', data: '!'.repeat(LONG), mimeType: 'image/png' }] };
    const refused = crossed(notBase64);
    assert.equal(refused.moved.length, 1);
    assert.equal(refused.moved[0]!.base64, false);
    assert.match(callToolResultProblem(refused.result as never) ?? '', /must be base64/);
    // Base64 that atob takes but is not canonical (unpadded): accepted, as before.
    const unpadded = longBase64(LONG - (LONG % 4))
      .replace(/=+$/, '')
      .slice(0, -1);
    const accepted = crossed({ content: [{ type: 'image', data: unpadded, mimeType: 'image/png' }] });
    assert.equal(callToolResultProblem(accepted.result as never), undefined);
  });
});

describe('moved strings, from a pool thread to a client', () => {
  const servers: McpServer[] = [];
  after(() => Promise.all(servers.map((server) => server.close())));

  function build(): { server: McpServer; seen: { accessor: boolean }[] } {
    const seen: { accessor: boolean }[] = [];
    const server = new McpServer({ name: 'moved', version: '1', pool: { maxThreads: 1 } })
      .tool(movedText)
      .tool(movedBare)
      .tool(movedBinary)
      .use({
        onCallTool: async (ctx, next) => {
          const result = (await next()) as CallToolResult;
          const block = result.content[0] as unknown as Record<string, unknown>;
          seen.push({ accessor: isAccessor(block, block.type === 'text' ? 'text' : 'data') });
          const args = (ctx.params.arguments ?? {}) as { line?: string };
          // A hook that rewrites the text: it reads the moved field, then writes it.
          if (args.line === 'rewrite ' && block.type === 'text') block.text = `${block.text as string}!`;
          return result;
        },
      });
    servers.push(server);
    return { server, seen };
  }

  it('a text block, a bare string and binary blocks arrive whole; the main thread held bytes', async () => {
    const { server, seen } = build();
    const client = new InProcessClient(server);
    await client.initialize();
    const chars = 3 * MOVED_STRING_MIN_CHARS + 1;
    const text = await client.request('tools/call', {
      name: 'moved_text',
      arguments: { chars, line: DOCUMENT_LINE },
    });
    assert.equal(text.result?.content?.[0]?.text, longText(chars, DOCUMENT_LINE));
    const bare = await client.request('tools/call', {
      name: 'moved_bare',
      arguments: { chars, line: 'bare ' },
    });
    assert.equal(bare.result?.content?.[0]?.text, longText(chars, 'bare '));
    const binary = await client.request('tools/call', {
      name: 'moved_binary',
      arguments: { chars: 4 * MOVED_STRING_MIN_CHARS, line: '' },
    });
    const blocks = binary.result?.content as unknown as [{ data: string }, { resource: { blob: string } }];
    assert.equal(blocks[0].data, longBase64(4 * MOVED_STRING_MIN_CHARS));
    assert.equal(blocks[1].resource.blob, longBase64(4 * MOVED_STRING_MIN_CHARS));
    assert.deepEqual(
      seen.map((one) => one.accessor),
      [true, true, true],
      'each long string reached the main thread as bytes',
    );
    client.close();
  });

  it("a middleware's change to a moved field is what the client gets", async () => {
    const { server } = build();
    const client = new InProcessClient(server);
    await client.initialize();
    const chars = MOVED_STRING_MIN_CHARS * 2;
    const reply = await client.request('tools/call', {
      name: 'moved_text',
      arguments: { chars, line: 'rewrite ' },
    });
    assert.equal(reply.result?.content?.[0]?.text, `${longText(chars, 'rewrite ')}!`);
    client.close();
  });
});
