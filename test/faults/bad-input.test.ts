/**
 * Bad input over raw stdio, against the demo server and the fault server: broken lines, wrong
 * envelopes, unknown names, ill-typed arguments, bad cursors, oversized messages, prototype keys,
 * ids of every legal type, duplicate in-flight ids. Each is answered as JSON-RPC says, and the
 * connection carries on: a `ping` after each group still answers.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { errorCode, isToolError, type Message, RawStdioClient, textOf } from './raw-stdio-client.js';

const DEMO = fileURLToPath(new URL('../../examples/demo-server.js', import.meta.url));
const FAULT_SERVER = fileURLToPath(new URL('./fault-server.js', import.meta.url));

async function stillServing(client: RawStdioClient): Promise<void> {
  assert.deepEqual((await client.request('ping')).result, {});
}

/** Sends raw lines and resolves with the id-null errors they produced, in order. */
async function nullIdAnswers(client: RawStdioClient, lines: string[]): Promise<Message[]> {
  const before = client.nullIdErrors().length;
  client.sendRaw(lines.map((line) => `${line}\n`).join(''));
  await stillServing(client); // answered in order after the lines above
  return client.nullIdErrors().slice(before);
}

describe('bad input over stdio (demo server)', () => {
  let client: RawStdioClient;

  before(async () => {
    client = new RawStdioClient(DEMO, ['--stdio']);
    await client.initialize();
  });

  after(async () => {
    await client.close();
  });

  test('a line that is not JSON gets -32700 with id null, and the stream goes on', async () => {
    const answers = await nullIdAnswers(client, [
      '{"jsonrpc":',
      'not json at all',
      '{"a":1}}',
      '\u00ff\u00fe',
    ]);
    assert.deepEqual(
      answers.map((answer) => errorCode(answer)),
      [-32700, -32700, -32700, -32700],
    );
  });

  test('JSON that is not a request gets -32600 with id null', async () => {
    const answers = await nullIdAnswers(client, [
      '42',
      '"ping"',
      'null',
      '[]',
      '{}',
      '{"jsonrpc":"2.0"}',
      '{"jsonrpc":"2.0","method":"ping","id":null}',
      '{"jsonrpc":"2.0","method":"ping","id":{"nested":1}}',
      '{"jsonrpc":"2.0","method":"ping","id":true}',
    ]);
    assert.equal(answers.length, 9);
    for (const answer of answers) assert.equal(errorCode(answer), -32600, JSON.stringify(answer));
  });

  test('a batch outside 2025-03-26 is refused as one -32600', async () => {
    const answers = await nullIdAnswers(client, ['[{"jsonrpc":"2.0","id":"b1","method":"ping"}]']);
    assert.equal(answers.length, 1);
    assert.equal(errorCode(answers[0]!), -32600);
    assert.equal(client.answers.get('b1'), undefined);
  });

  test('blank lines are ignored, not answered', async () => {
    const answers = await nullIdAnswers(client, ['', '   ', '\t']);
    assert.deepEqual(answers, []);
  });

  test('an envelope with a usable id but a wrong version echoes the id', async () => {
    client.sendRaw('{"jsonrpc":"1.0","id":"old","method":"ping"}\n');
    const answer = await client.waitFor((message) => message.id === 'old');
    assert.equal(errorCode(answer), -32600);
  });

  test('unknown method -32601, unknown tool -32602, bad cursor -32602', async () => {
    assert.equal(errorCode(await client.request('no/such/method')), -32601);
    assert.equal(errorCode(await client.call('no_such_tool')), -32602);
    assert.equal(errorCode(await client.request('tools/list', { cursor: 'garbage!' })), -32602);
    assert.equal(errorCode(await client.request('tools/list', { cursor: 42 })), -32602);
    await stillServing(client);
  });

  test('"twenty" or 1.5 for an integer is a tool error that names the problem', async () => {
    for (const n of ['twenty', 1.5]) {
      const answer = await client.call('fib', { n });
      assert.ok(isToolError(answer), JSON.stringify(answer));
      assert.match(textOf(answer), /Invalid arguments/);
    }
    const ok = await client.call('fib', { n: 10.0 });
    assert.ok(!isToolError(ok), 'an integer written as 10.0 is still an integer');
  });

  test('an 8 MiB argument gets an answer', async () => {
    const text = 'x'.repeat(8 * 1024 * 1024);
    const answer = await client.call('echo', { text });
    assert.equal(textOf(answer).length, text.length);
    await stillServing(client);
  });

  test('a message over maxMessageBytes gets a clear -32600 with its id, and nothing around it is lost', async () => {
    const huge = JSON.stringify({
      jsonrpc: '2.0',
      id: 'huge',
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'y'.repeat(17 * 1024 * 1024) } },
    });
    const before = client.nullIdErrors().length;
    const first = client.call('echo', { text: 'before' }, 'before-huge');
    client.sendRaw(`${huge}\n`);
    const refusal = client.waitFor((message) => message.id === 'huge');
    const second = client.call('echo', { text: 'after' }, 'after-huge');
    assert.equal(textOf(await first), 'before');
    assert.equal(textOf(await second), 'after');
    const refused = await refusal;
    assert.equal(errorCode(refused), -32600);
    assert.match((refused.error as { message: string }).message, /maxMessageBytes/);
    assert.equal(client.answers.get('huge')?.length, 1);
    assert.equal(client.nullIdErrors().length, before);
  });

  test('ids of every legal type are echoed exactly', async () => {
    const ids: Array<string | number> = [
      '',
      'a',
      'ü 🎉 \u2028',
      ' spaced ',
      '0',
      0,
      -1,
      1.5,
      1e21,
      -0.25,
      2 ** 53 - 1,
    ];
    for (const id of ids) {
      const answer = await client.request('ping', undefined, id);
      assert.ok(
        Object.is(answer.id, id) || answer.id === id,
        `id ${JSON.stringify(id)} came back as ${answer.id}`,
      );
      assert.deepEqual(answer.result, {});
    }
  });

  test('a duplicate in-flight id is refused; the first call still gets its answer', async () => {
    client.send({
      jsonrpc: '2.0',
      id: 'dup',
      method: 'tools/call',
      params: { name: 'wait', arguments: { ms: 300 } },
    });
    const first = client.waitFor((message) => message.id === 'dup' && 'result' in message);
    await new Promise((resolve) => setTimeout(resolve, 50));
    client.send({
      jsonrpc: '2.0',
      id: 'dup',
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'second' } },
    });
    const refusal = await client.waitFor((message) => message.id === 'dup' && 'error' in message);
    assert.equal(errorCode(refusal), -32600);
    assert.match((refusal.error as { message: string }).message, /already in flight/);
    assert.equal(textOf(await first), 'waited 300 ms');
    assert.equal(client.answers.get('dup')?.length, 2, 'one refusal and one result');
  });

  test('the connection survived all of it', async () => {
    await stillServing(client);
    assert.deepEqual(client.garbage, []);
  });
});

describe('hostile argument keys (fault server)', () => {
  let client: RawStdioClient;

  before(async () => {
    client = new RawStdioClient(FAULT_SERVER);
    await client.initialize();
  });

  after(async () => {
    await client.close();
  });

  test('__proto__ and constructor keys in arguments pollute nothing', async () => {
    const hostile = [
      '{"__proto__":{"polluted":"yes"}}',
      '{"constructor":{"prototype":{"polluted":"yes"}}}',
      '{"__proto__":{"constructor":{"prototype":{"polluted":"yes"}}},"a":1}',
    ];
    for (const [index, args] of hostile.entries()) {
      const id = `hostile-${index}`;
      client.sendRaw(
        `{"jsonrpc":"2.0","id":"${id}","method":"tools/call","params":{"name":"inspect_args","arguments":${args}}}\n`,
      );
      const answer = await client.waitFor((message) => message.id === id);
      const report = JSON.parse(textOf(answer)) as { polluted: boolean; constructorIsObject: boolean };
      assert.equal(report.polluted, false, args);
      assert.equal(report.constructorIsObject, true, args);
    }
    // The same keys in params and _meta, and a strict-schema tool refusing them as unknown.
    client.sendRaw(
      '{"jsonrpc":"2.0","id":"meta","method":"tools/call","params":{"__proto__":{"name":"x"},"name":"echo","_meta":{"__proto__":{"progressToken":1}},"arguments":{"text":"ok"}}}\n',
    );
    assert.equal(textOf(await client.waitFor((message) => message.id === 'meta')), 'ok');
    const after = await client.call('inspect_args', {});
    assert.equal((JSON.parse(textOf(after)) as { polluted: boolean }).polluted, false);
  });
});
