/**
 * The message encoder on its own: it never throws, says what made a value unsendable and where,
 * answers an unencodable response with -32603 under its id, drops an unencodable notification, keeps
 * the rest of a batch, and reuses a result's text instead of encoding it again.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { failure, notification, success } from '../../lib/protocol/json-rpc.js';
import { encodedSuccess, encodeJson, encodeMessage } from '../../lib/protocol/message-encoding.js';
import { ProtocolError } from '../../lib/protocol/protocol-error.js';

const problemOf = (value: unknown): string => {
  const encoded = encodeJson(value);
  assert.equal(encoded.ok, false, 'expected a value JSON cannot carry');
  return (encoded as { problem: string }).problem;
};

describe('encodeJson', () => {
  it('names a BigInt and its path', () => {
    assert.match(problemOf({ a: [{ b: 1 }, { c: 2n }] }), /^a BigInt at a\[1\]\.c /);
    assert.match(problemOf(3n), /^a BigInt at the top level/);
  });

  it('names a cycle, a throwing toJSON or getter, deep nesting, and what is not JSON at all', () => {
    const cycle: Record<string, unknown> = {};
    cycle.again = cycle;
    assert.match(problemOf(cycle), /^it refers to itself \(.*property 'again' closes the circle\)$/);
    assert.equal(
      problemOf({
        toJSON() {
          throw new Error('no');
        },
      }),
      'serializing it threw: no',
    );
    assert.equal(
      problemOf({
        get x() {
          throw new TypeError('bad getter');
        },
      }),
      'serializing it threw: bad getter',
    );
    let deep: unknown[] = [];
    for (let i = 0; i < 50_000; i++) deep = [deep];
    assert.equal(problemOf(deep), 'it is nested too deeply to serialize');
    assert.match(problemOf(undefined), /undefined/);
    assert.match(
      problemOf(() => 1),
      /a function/,
    );
    assert.match(problemOf(Symbol('s')), /a symbol/);
  });

  it('encodes what JSON can carry as JSON.stringify does', () => {
    const values = [{ when: new Date(0) }, { n: Number.NaN }, new Map([[1, 2]]), [undefined], 'text', 0];
    for (const value of values)
      assert.deepEqual(encodeJson(value), { ok: true, text: JSON.stringify(value) });
  });
});

describe('encodeMessage', () => {
  it('answers a response that cannot be encoded with -32603 under its id, and reports why', () => {
    const reports: string[] = [];
    const text = encodeMessage(success(7, { count: 1n }), (line) => reports.push(line));
    assert.deepEqual(JSON.parse(text!), {
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32603, message: 'Internal error' },
    });
    assert.match(reports.join(''), /request 7 .*a BigInt at result\.count/);
    const withData = failure('x', new ProtocolError(-32602, 'bad', { big: 2n }));
    assert.equal(JSON.parse(encodeMessage(withData, () => {})!).error.code, -32603);
  });

  it('drops a notification that cannot be encoded, and keeps the rest of a batch', () => {
    const reports: string[] = [];
    const report = (line: string) => reports.push(line);
    assert.equal(encodeMessage(notification('notifications/message', { data: 1n }), report), undefined);
    assert.match(reports[0]!, /dropped an outgoing notifications\/message/);
    const batch = encodeMessage(
      [success(1, {}), notification('x/y', { n: 1n }), success(2, { n: 2n })],
      report,
    );
    assert.deepEqual(JSON.parse(batch!), [
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 2, error: { code: -32603, message: 'Internal error' } },
    ]);
    assert.equal(encodeMessage([notification('x/y', { n: 1n })], report), undefined);
  });

  it('sends a pre-encoded result as the same text JSON.stringify makes, without encoding it again', () => {
    let reads = 0;
    const result = {
      get content() {
        reads++;
        return [{ type: 'text', text: 'é "quoted"' }];
      },
    };
    const text = encodeJson(result);
    assert.ok(text.ok);
    const message = encodedSuccess('id-1', result, text);
    const before = reads;
    const sent = encodeMessage(message, () => assert.fail('nothing to report'));
    assert.equal(reads, before, 'the result was read again');
    assert.equal(sent, JSON.stringify({ jsonrpc: '2.0', id: 'id-1', result }));
  });
});
