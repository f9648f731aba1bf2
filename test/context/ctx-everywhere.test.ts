/**
 * One ctx wherever a handler runs, seen through the official SDK client over stdio: a
 * process-isolated tool's ctx.elicit reaches the client and its answer comes back; callAll settles
 * each call on its own (one failing) inline, in a thread and in a process; what cannot cross a
 * thread is refused with what to do instead, and a module-defined tool added from a thread is
 * listed and callable; resources and prompts answer a process.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  ElicitRequestSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { connectOverStdio, type StdioSession } from '../support/sdk-stdio.js';

const SERVER = fileURLToPath(new URL('./ctx-server.js', import.meta.url));

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }> };

describe('one ctx everywhere, through the official SDK client', () => {
  let session: StdioSession;
  const questions: { message: string }[] = [];
  let toolListChanges = 0;
  const updatedUris: string[] = [];

  before(async () => {
    session = await connectOverStdio(SERVER, ['stdio'], {}, { elicitation: {} });
    session.client.setRequestHandler(ElicitRequestSchema, async (request) => {
      questions.push({ message: request.params.message });
      return { action: 'accept', content: { name: 'Ada' } };
    });
    session.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      toolListChanges++;
    });
    session.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      updatedUris.push(notification.params.uri);
    });
  });

  after(() => session.close());

  const call = async (name: string) => (await session.client.callTool({ name, arguments: {} })) as ToolResult;
  const text = (result: ToolResult) => result.content[0]?.text ?? '';

  it("relays a process-isolated tool's ctx.elicit to the client and returns its answer", async () => {
    const result = await call('ask_in_process');
    assert.equal(result.isError, undefined, text(result));
    const match = /^accept: \{"name":"Ada"\} from (\d+)$/.exec(text(result));
    assert.ok(match, `unexpected answer: ${text(result)}`);
    const handlerPid = Number(match[1]);
    assert.notEqual(handlerPid, session.pid, 'the handler ran in a pool process, not in the server');
    assert.equal(questions.length, 1);
    assert.equal(questions[0]?.message, `Your name? (asked by pid ${handlerPid})`);
  });

  for (const where of ['inline', 'thread', 'process']) {
    it(`settles each call of ctx.tools().callAll on its own, one failing (${where})`, async () => {
      const result = await call(`fan_out_${where}`);
      assert.equal(result.isError, undefined, text(result));
      const outcomes = JSON.parse(text(result)) as Record<string, unknown>[];
      assert.equal(outcomes.length, 3);
      assert.deepEqual(outcomes[0], { name: 'echo_text', ok: true, text: 'first' });
      assert.equal(outcomes[1]?.name, 'no_such_tool');
      assert.equal(outcomes[1]?.ok, false);
      assert.equal(outcomes[1]?.isError, true, 'the failure is an Error on the handler side');
      assert.match(String(outcomes[1]?.error), /no_such_tool/);
      assert.deepEqual(outcomes[2], { name: 'echo_text', ok: true, text: 'third' });
    });
  }

  it('refuses from a thread what cannot cross it, and adds a module-defined tool', async () => {
    const changesBefore = toolListChanges;
    const result = await call('add_from_worker');
    assert.equal(result.isError, undefined, text(result));
    const said = JSON.parse(text(result)) as Record<string, unknown>;
    assert.match(String(said.inline), /handler is a function/);
    assert.match(String(said.inline), /module-defined tool/);
    assert.match(String(said.resource), /cannot be sent from a pool thread or process/);
    assert.match(String(said.resource), /inline tool/);
    assert.equal(said.called, 'late tool ran in a thread: true');
    assert.deepEqual(said.found, ['late_tool', 'echo_text']);
    assert.deepEqual(said.tagged, ['echo_text', 'late_tool']);
    const { tools } = await session.client.listTools();
    const late = tools.find((tool) => tool.name === 'late_tool');
    assert.ok(late, 'the added tool is listed');
    assert.equal((late as Record<string, unknown>).tags, undefined, 'tags stay local');
    assert.ok(toolListChanges > changesBefore, 'clients heard tools/list_changed');
    assert.equal(text(await call('late_tool')), 'late tool ran in a thread: true');
  });

  it('reads resources and prompts from a process, and knows what the client subscribed to', async () => {
    await session.client.subscribeResource({ uri: 'app://greeting' });
    const result = await call('read_from_process');
    assert.equal(result.isError, undefined, text(result));
    assert.deepEqual(JSON.parse(text(result)), {
      text: 'hello there',
      subscribed: true,
      prompt: 'Hello, process',
      prompts: ['hello'],
    });
    const started = Date.now();
    while (!updatedUris.includes('app://greeting')) {
      assert.ok(Date.now() - started < 5_000, 'the subscribed client heard resources/updated');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });
});
