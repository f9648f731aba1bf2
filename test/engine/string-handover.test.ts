/**
 * A pool thread hands its result's long ASCII strings to the main thread as bytes
 * (lib/engine/string-handover.ts): what is handed over and what is not, that the handler's objects
 * are left as they were, and that results arrive byte for byte through a real pool thread.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { handOver, takeOver } from '../../lib/engine/string-handover.js';
import { McpServer } from '../../lib/index.js';
import { InProcessClient } from '../support/in-process-client.js';
import {
  ASCII_DOCUMENT,
  BLOB_BASE64,
  bareDocument,
  IMAGE_BASE64,
  imageBytes,
  keptResult,
  WIDE_TEXT,
} from './handover-tools.js';

const roundTrip = (value: unknown) => {
  const { value: posted, strings } = handOver(value);
  // What crosses the thread boundary is a clone; the bytes are moved, which leaves them as they are.
  return { posted, strings, taken: takeOver(structuredClone(posted), strings) };
};

describe('handing long strings over', () => {
  it('hands over a bare ASCII string, in a buffer of its own', () => {
    const { posted, strings, taken } = roundTrip(ASCII_DOCUMENT);
    assert.equal(posted, '');
    assert.equal(strings.length, 1);
    assert.equal(strings[0]!.block, -1);
    assert.equal(strings[0]!.bytes.byteLength, ASCII_DOCUMENT.length);
    assert.equal(taken, ASCII_DOCUMENT);
  });

  it('hands over each block’s long ASCII string and nothing else, leaving the handler’s objects whole', () => {
    const resource = { uri: 'file:///a.bin', blob: BLOB_BASE64 };
    const result = {
      content: [
        { type: 'text', text: ASCII_DOCUMENT },
        { type: 'text', text: WIDE_TEXT },
        { type: 'text', text: 'short' },
        { type: 'image', data: IMAGE_BASE64, mimeType: 'image/png' },
        { type: 'audio', data: IMAGE_BASE64, mimeType: 'audio/wav' },
        { type: 'resource', resource },
        { type: 'resource', resource: { uri: 'file:///a.txt', text: ASCII_DOCUMENT } },
        { type: 'resource_link', uri: 'file:///b', name: ASCII_DOCUMENT },
      ],
      structuredContent: { note: 'kept as it is' },
    };
    const before = structuredClone(result);
    const { posted, strings, taken } = roundTrip(result);
    assert.deepEqual(
      strings.map((string) => string.block),
      [0, 3, 4, 5, 6],
    );
    const postedContent = (posted as typeof result).content;
    assert.equal(postedContent[0]!.text, '');
    assert.equal(postedContent[1]!.text, WIDE_TEXT, 'a string past ASCII is cloned as it is');
    assert.equal((postedContent[5] as { resource: { blob: string } }).resource.blob, '');
    assert.equal(postedContent[7], result.content[7], 'a block without a handed-over string is not copied');
    assert.deepEqual(result, before, 'the handler’s result is unchanged');
    assert.equal(result.content[5]!.resource, resource);
    assert.deepEqual(taken, before);
  });

  it('leaves a result without long ASCII strings as it is', () => {
    const result = {
      content: [
        { type: 'text', text: WIDE_TEXT },
        { type: 'text', text: 'x'.repeat(1000) },
      ],
    };
    const { value, strings } = handOver(result);
    assert.equal(value, result);
    assert.equal(strings.length, 0);
    for (const odd of [undefined, null, 42, 'short', { content: 'not an array' }, { content: [null, 7] }]) {
      assert.deepEqual(handOver(odd), { value: odd, strings: [] });
    }
  });
});

describe('long strings from a real pool thread', () => {
  const server = new McpServer({ name: 'handover', version: '1', pool: { maxThreads: 1 } })
    .tool(keptResult)
    .tool(bareDocument)
    .tool(imageBytes);
  const client = new InProcessClient(server);
  after(() => server.close());

  it('arrive byte for byte, call after call, from a result the thread keeps', async () => {
    await client.initialize();
    for (let call = 0; call < 3; call++) {
      const answer = await client.callTool('kept_result', {});
      assert.deepEqual(answer.result?.content, [
        { type: 'text', text: ASCII_DOCUMENT },
        { type: 'image', data: IMAGE_BASE64, mimeType: 'image/png' },
        { type: 'text', text: 'short' },
        { type: 'text', text: WIDE_TEXT },
        { type: 'resource', resource: { uri: 'file:///a.bin', blob: BLOB_BASE64 } },
        { type: 'resource', resource: { uri: 'file:///a.txt', text: ASCII_DOCUMENT } },
      ]);
    }
  });

  it('arrive as a bare string and as bytes the thread made base64', async () => {
    const text = await client.callTool('bare_document', {});
    assert.deepEqual(text.result?.content, [{ type: 'text', text: ASCII_DOCUMENT }]);
    const image = await client.callTool('image_bytes', {});
    const [block] = image.result!.content as unknown as { type: string; data: string }[];
    assert.equal(block!.type, 'image');
    const data = Buffer.from(block!.data, 'base64');
    assert.equal(data.length, 8 + 100 * 1024);
    assert.equal(data.subarray(0, 8).toString('hex'), '89504e470d0a1a0a');
  });
});
