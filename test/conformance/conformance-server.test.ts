/**
 * The conformance server exposes every name the official suite asks for, with the logging and
 * progress tools running on the worker pool. The suite itself runs in `npm run conformance` (it
 * needs Node 22); this check runs everywhere and fails fast when a name drifts.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  LoggingMessageNotificationSchema,
  PromptListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

const SERVER = fileURLToPath(new URL('../../examples/conformance-server.js', import.meta.url));

describe('the conformance server', () => {
  let child: ChildProcess;
  let client: Client;
  let url: string;
  before(async () => {
    child = spawn(process.execPath, [SERVER], {
      env: { ...process.env, PORT: '0' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    url = await new Promise<string>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(() => reject(new Error(`no address announced:\n${output}`)), 10_000);
      child.stderr!.on('data', (chunk) => {
        output += chunk;
        const found = /(http:\/\/\S+\/mcp)/.exec(output);
        if (found) {
          clearTimeout(timer);
          resolve(found[1]!);
        }
      });
    });
    client = new Client({ name: 'names', version: '1' }, { capabilities: { sampling: {}, elicitation: {} } });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  });
  after(async () => {
    await client.close();
    child.kill('SIGTERM');
  });

  it('exposes every tool, resource, template and prompt the suite calls', async () => {
    const tools = (await client.listTools()).tools.map((tool) => tool.name);
    for (const name of [
      'json_schema_2020_12_tool',
      'test_audio_content',
      'test_custom_headers',
      'test_elicitation',
      'test_elicitation_sep1034_defaults',
      'test_elicitation_sep1330_enums',
      'test_embedded_resource',
      'test_error_handling',
      'test_image_content',
      'test_input_required_result_capabilities',
      'test_input_required_result_elicitation',
      'test_input_required_result_list_roots',
      'test_input_required_result_multi_round',
      'test_input_required_result_multiple_inputs',
      'test_input_required_result_request_state',
      'test_input_required_result_sampling',
      'test_input_required_result_tampered_state',
      'test_logging_tool',
      'test_missing_capability',
      'test_multiple_content_types',
      'test_reconnection',
      'test_sampling',
      'test_simple_text',
      'test_streaming_elicitation',
      'test_tool_with_logging',
      'test_tool_with_progress',
      'test_trigger_prompt_change',
      'test_trigger_tool_change',
    ]) {
      assert.ok(tools.includes(name), `missing tool ${name}`);
    }
    const resources = (await client.listResources()).resources.map((resource) => resource.uri);
    assert.deepEqual(resources, ['test://static-binary', 'test://static-text', 'test://watched-resource']);
    const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    assert.deepEqual(templates, ['test://template/{id}/data']);
    const prompts = (await client.listPrompts()).prompts.map((prompt) => prompt.name);
    assert.deepEqual(prompts, [
      'test_input_required_result_prompt',
      'test_prompt_with_arguments',
      'test_prompt_with_embedded_resource',
      'test_prompt_with_image',
      'test_simple_prompt',
    ]);
  });

  it('sends the blocking logging tool’s three logs before its result', async () => {
    const logs: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      logs.push(notification.params.data);
    });
    await client.setLoggingLevel('debug');
    await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
    assert.deepEqual(logs, ['Tool execution started', 'Tool processing data', 'Tool execution completed']);
  });

  it('the list-change triggers toggle a companion entry, and a legacy session hears each change', async () => {
    const heard: string[] = [];
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      heard.push('tools');
    });
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => {
      heard.push('prompts');
    });
    const toolNames = async () => (await client.listTools()).tools.map((tool) => tool.name);
    const promptNames = async () => (await client.listPrompts()).prompts.map((prompt) => prompt.name);
    const [toolsBefore, promptsBefore] = [await toolNames(), await promptNames()];
    await client.callTool({ name: 'test_trigger_tool_change', arguments: {} });
    await client.callTool({ name: 'test_trigger_prompt_change', arguments: {} });
    assert.deepEqual(await toolNames(), [...toolsBefore, 'test_tool_toggled_by_trigger'].sort());
    assert.deepEqual(await promptNames(), [...promptsBefore, 'test_prompt_toggled_by_trigger'].sort());
    await client.callTool({ name: 'test_trigger_tool_change', arguments: {} });
    await client.callTool({ name: 'test_trigger_prompt_change', arguments: {} });
    assert.deepEqual(await toolNames(), toolsBefore);
    assert.deepEqual(await promptNames(), promptsBefore);
    const deadline = Date.now() + 3_000;
    while (heard.length < 4 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(heard.sort(), ['prompts', 'prompts', 'tools', 'tools']);
  });

  it('test_logging_tool sends, to a 2026-07-28 request, only the logs at or above its logLevel', async () => {
    const call = (logLevel?: string) =>
      fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'test_logging_tool',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: {
            name: 'test_logging_tool',
            arguments: {},
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              'io.modelcontextprotocol/clientCapabilities': {},
              ...(logLevel ? { 'io.modelcontextprotocol/logLevel': logLevel } : {}),
            },
          },
        }),
      }).then((response) => response.text());
    const messages = (body: string) =>
      body
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => JSON.parse(line.slice(5)) as { method?: string; params?: { level?: string } })
        .filter((message) => message.method === 'notifications/message')
        .map((message) => message.params?.level);
    assert.deepEqual(messages(await call('warning')), ['warning', 'error']);
    const silent = await call();
    assert.deepEqual(messages(silent), []);
    assert.match(silent, /Logged one message at each of debug, info, warning, error/);
  });
});
