/**
 * A property test of the stdio byte stream: whatever way the bytes are cut into chunks (a newline
 * at a chunk's edge, a multi-byte character split in two, many lines in one chunk, a line longer
 * than the limit), the transport yields exactly the lines that were sent, answers each one, and
 * refuses each oversized one once (with the id its ends show), without losing its neighbours.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import fc from 'fast-check';
import { encodeMessage, encodeMessageChunks } from '../../lib/protocol/message-encoding.js';
import { LineSplitter } from '../../lib/transports/line-splitter.js';
import { ENVELOPE_BYTES, idOfOversizedMessage } from '../../lib/transports/oversized-message-id.js';
import { StdioTransport } from '../../lib/transports/stdio.js';

const LIMIT = 64;

/** A line of text with no newline; sometimes longer than the limit, often with multi-byte characters. */
const lineText = fc
  .oneof(
    fc.string({ unit: 'grapheme', maxLength: 20 }),
    fc.string({ maxLength: 120 }),
    fc.constantFrom('é', '€', '🎉', '{"jsonrpc":"2.0","id":1,"method":"ping"}'),
    // Right at the limit, in one-byte and multi-byte characters.
    fc.constantFrom(
      'a'.repeat(LIMIT - 1),
      'a'.repeat(LIMIT),
      'a'.repeat(LIMIT + 1),
      'é'.repeat(LIMIT / 2),
      `${'€'.repeat(21)}a`,
      '🎉'.repeat(LIMIT / 4 + 1),
      // Oversized with an id at either end, which the refusal carries.
      `{"jsonrpc":"2.0","id":9,"method":"ping","params":{"pad":"${'p'.repeat(LIMIT)}"}}`,
      `{"method":"ping","params":{"pad":"${'€'.repeat(LIMIT)}"},"jsonrpc":"2.0","id":"last"}`,
    ),
  )
  .map((text) => text.replaceAll('\n', ' '));

/** The id an oversized line's refusal carries, read from the ends of the line in one piece. */
function idOfWholeLine(text: string): string | number | null {
  const bytes = Buffer.from(text);
  return idOfOversizedMessage(
    bytes.subarray(0, ENVELOPE_BYTES).toString('utf8'),
    bytes.subarray(Math.max(0, bytes.length - ENVELOPE_BYTES)).toString('utf8'),
  );
}

/** Cuts `bytes` into pieces at the given fractions of its length. */
function cut(bytes: Buffer, fractions: number[]): Buffer[] {
  const points = [...new Set(fractions.map((f) => Math.floor(f * bytes.length)))].sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let start = 0;
  for (const point of points) {
    pieces.push(bytes.subarray(start, point));
    start = point;
  }
  pieces.push(bytes.subarray(start));
  return pieces;
}

test('the line splitter yields the same lines however the stream is chunked', () => {
  let lines = 0;
  fc.assert(
    fc.property(
      fc.array(lineText, { minLength: 5, maxLength: 30 }),
      fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 40 }),
      fc.boolean(),
      (texts, fractions, trailingNewline) => {
        const stream = Buffer.from(texts.join('\n') + (trailingNewline ? '\n' : ''));
        const splitter = new LineSplitter(LIMIT);
        const events = [];
        for (const piece of cut(stream, fractions)) events.push(...splitter.push(piece));
        events.push(...splitter.end());
        const expected = texts
          .filter((text) => text.trim().length > 0 || Buffer.byteLength(text) > LIMIT)
          .map((text) =>
            Buffer.byteLength(text) > LIMIT
              ? { kind: 'too-large', bytes: Buffer.byteLength(text), id: idOfWholeLine(text) }
              : { kind: 'line', text },
          );
        lines += texts.length;
        assert.deepEqual(events, expected);
      },
    ),
    { numRuns: 400 },
  );
  assert.ok(lines >= 2_000, `only ${lines} lines were generated`);
});

test('the stdio transport answers every line once, however the stream is chunked', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.oneof(lineText, fc.constant('{"jsonrpc":"2.0","id":"ID","method":"ping"}')), {
        minLength: 1,
        maxLength: 20,
      }),
      fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 20 }),
      async (texts, fractions) => {
        const input = new PassThrough();
        const output = new PassThrough();
        const received: unknown[] = [];
        const pings: string[] = [];
        // A stand-in connection: it answers every parsed value with its own id (or null).
        const transport = new StdioTransport(
          (sink) => ({
            session: undefined as never,
            receive: (value) => {
              received.push(value);
              const id = (value as { id?: unknown } | null)?.id;
              sink.send({ jsonrpc: '2.0', id: typeof id === 'string' ? id : null, result: {} } as never);
              return undefined;
            },
            encode: (message) => encodeMessage(message, () => {}),
            encodeChunks: (message) => encodeMessageChunks(message, () => {}),
            close: () => {},
          }),
          { input, output, maxMessageBytes: LIMIT },
        );
        let text = '';
        output.setEncoding('utf8');
        output.on('data', (chunk: string) => {
          text += chunk;
        });
        const withIds = texts.map((line, index) => {
          if (!line.includes('"ID"')) return line;
          pings.push(`p${index}`);
          return line.replace('"ID"', `"p${index}"`);
        });
        for (const piece of cut(Buffer.from(`${withIds.join('\n')}\n`), fractions)) input.write(piece);
        input.end();
        await transport.ended;
        await transport.flush();
        const answers = text
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as { id: string | null });
        const nonBlank = withIds.filter(
          (line) => line.trim().length > 0 || Buffer.byteLength(line) > LIMIT,
        ).length;
        assert.equal(answers.length, nonBlank, 'one answer per non-blank line');
        for (const id of pings) {
          assert.equal(answers.filter((answer) => answer.id === id).length, 1, `ping ${id}`);
        }
      },
    ),
    { numRuns: 100 },
  );
});
