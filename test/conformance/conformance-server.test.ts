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
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const SERVER = fileURLToPath(new URL('../../examples/conformance-server.js', import.meta.url));

describe('the conformance server', () => {
  let child: ChildProcess;
  let client: Client;
  before(async () => {
    child = spawn(process.execPath, [SERVER], {
      env: { ...process.env, PORT: '0' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const url = await new Promise<string>((resolve, reject) => {
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
      'test_elicitation',
      'test_elicitation_sep1034_defaults',
      'test_elicitation_sep1330_enums',
      'test_embedded_resource',
      'test_error_handling',
      'test_image_content',
      'test_multiple_content_types',
      'test_reconnection',
      'test_sampling',
      'test_simple_text',
      'test_tool_with_logging',
      'test_tool_with_progress',
    ]) {
      assert.ok(tools.includes(name), `missing tool ${name}`);
    }
    const resources = (await client.listResources()).resources.map((resource) => resource.uri);
    assert.deepEqual(resources, ['test://static-binary', 'test://static-text', 'test://watched-resource']);
    const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    assert.deepEqual(templates, ['test://template/{id}/data']);
    const prompts = (await client.listPrompts()).prompts.map((prompt) => prompt.name);
    assert.deepEqual(prompts, [
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
});
