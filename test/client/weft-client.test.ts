/**
 * weft/client against a weft server in both eras, over Streamable HTTP and WebSocket: the handshake
 * probe, listings, calls with mirrored headers, multi-round questions, progress and logs, cancels
 * that reach the handler, prompts, resources, completion and tasks.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connect, McpClient, McpError, transportFor } from '../../lib/client/index.js';
import { startWeftUpstream, type WeftUpstream } from './weft-upstream.js';

let upstream: WeftUpstream;
before(async () => {
  upstream = await startWeftUpstream();
});
after(() => upstream.close());

const text = (result: Record<string, unknown>) =>
  (result.content as { type: string; text?: string }[])
    .map((block) => block.text ?? `[${block.type}]`)
    .join('|');

const handlers = {
  onElicitation: async (params: Record<string, unknown>) => ({
    action: 'accept' as const,
    content: { username: 'ada', name: 'ada', confirmed: true, message: String(params.message) },
  }),
  onSampling: async () => ({ role: 'assistant', content: { type: 'text', text: 'sampled' }, model: 'test' }),
  roots: [{ uri: 'file:///work', name: 'work' }],
};

for (const protocol of ['modern', 'legacy'] as const) {
  describe(`weft/client over HTTP, ${protocol} era`, () => {
    let client: McpClient;
    before(async () => {
      client = await connect(upstream.httpUrl, { protocol, ...handlers, tasks: true, pollIntervalMs: 20 });
    });
    after(() => client.close());

    test('learns the era and the server', () => {
      assert.equal(client.era, protocol);
      assert.equal(client.protocolVersion, protocol === 'modern' ? '2026-07-28' : '2025-11-25');
      assert.equal(client.serverInfo?.name, 'weft-upstream');
      assert.ok(client.serverCapabilities.tools);
    });

    test('lists every tool in name order and calls one', async () => {
      const tools = await client.listTools();
      const names = tools.map((tool) => tool.name);
      assert.deepEqual(names, [...names].sort());
      assert.ok(names.includes('test_simple_text'));
      const result = await client.callTool('test_simple_text');
      assert.match(text(result), /simple text/i);
    });

    test('mirrors x-mcp-header arguments, non-ASCII ones in Base64', async () => {
      await client.listTools({ refresh: true });
      const result = await client.callTool('test_custom_headers', {
        region: 'Hello, 世界',
        priority: 7,
        verbose: true,
        query: 'q',
      });
      // In the modern era the server refuses the call (-32020) unless each header matched the body.
      assert.equal(text(result), 'region=Hello, 世界 priority=7 verbose=true query=q');
    });

    test('answers a question the tool asks with the registered handler', async () => {
      // The same tool asks through ctx.elicit: an input_required round (modern) or a server request (legacy).
      const result = await client.callTool('test_input_required_result_elicitation');
      assert.equal(result.isError, undefined, text(result));
      assert.match(JSON.stringify(result.content), /ada|accept/);
    });

    test('relays progress and logs of a call', async () => {
      const steps: unknown[] = [];
      const result = await client.callTool(
        'report_progress',
        {},
        { onprogress: (p) => steps.push(p.progress) },
      );
      assert.equal(text(result), 'done');
      assert.deepEqual(steps, [1, 2, 3]);
    });

    test('an aborted signal cancels the call on the server', async () => {
      const controller = new AbortController();
      const seen = upstream.cancelled();
      const call = client.callTool('wait_for_cancel', {}, { signal: controller.signal });
      setTimeout(() => controller.abort(new Error('enough')), 100);
      await assert.rejects(call, /enough/);
      const reason = await seen;
      assert.ok(reason.length > 0);
    });

    test('reads prompts, resources and completions', async () => {
      const prompts = await client.listPrompts();
      assert.ok(prompts.some((prompt) => prompt.name === 'test_prompt_with_arguments'));
      const prompt = await client.getPrompt('test_prompt_with_arguments', { arg1: 'a', arg2: 'b' });
      assert.ok(Array.isArray(prompt.messages));
      const resources = await client.listResources();
      assert.ok(resources.some((resource) => resource.uri === 'test://static-text'));
      const templates = await client.listResourceTemplates();
      assert.ok(templates.some((template) => template.uriTemplate === 'test://template/{id}/data'));
      const read = await client.readResource('test://static-text');
      assert.ok(Array.isArray(read.contents));
    });

    test("an unknown tool is the server's McpError with its code", async () => {
      await assert.rejects(client.callTool('no_such_tool'), (error: unknown) => {
        assert.ok(error instanceof McpError);
        assert.equal(error.code, -32602);
        return true;
      });
    });

    test('a tool that becomes a task is followed to its result, questions answered', async () => {
      const created: unknown[] = [];
      const result = await client.callTool(
        'confirm_delete',
        { filename: 'a.txt' },
        { task: true, onTaskCreated: (task) => created.push(task.taskId) },
      );
      assert.equal(created.length, 1);
      assert.match(text(result), /a\.txt/);
    });
  });
}

describe('weft/client over WebSocket', () => {
  test('both eras call a tool and answer questions', async () => {
    for (const protocol of ['modern', 'legacy'] as const) {
      const client = await new McpClient(transportFor(upstream.wsUrl), { protocol, ...handlers }).connect();
      assert.equal(client.era, protocol);
      assert.match(text(await client.callTool('test_simple_text')), /simple text/i);
      const result = await client.callTool('test_input_required_result_elicitation');
      assert.equal(result.isError, undefined, text(result));
      await client.close();
    }
  });

  test('auto picks the modern era from server/discover', async () => {
    const client = await connect(upstream.wsUrl);
    assert.equal(client.era, 'modern');
    await client.close();
  });
});
