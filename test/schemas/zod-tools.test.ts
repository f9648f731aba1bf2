/**
 * What a zod schema does beyond JSON Schema reaches the handler: defaults and transforms arrive
 * applied (in a pool process too), an async refinement is awaited before the call runs, and a
 * schema weft cannot publish is refused at registration with a message that says what to change.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { z } from 'zod';
import { McpServer, ToolRegistrationError } from '../../lib/index.js';
import { zodClaim, zodTotal } from './zod-tools.js';

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;
const server = () => new McpServer({ name: 't', version: '1' });

describe('zod tools, served', () => {
  let mcp: McpServer;
  let client: LegacyClient;
  before(async () => {
    mcp = new McpServer({ name: 'weft-zod-tools', version: '0.0.0', pool: { maxThreads: 1 } });
    mcp.tool(zodTotal).tool(zodClaim);
    await mcp.listen({ http: { port: 0, host: '127.0.0.1' } });
    client = new LegacyClient({ name: 'weft-zod-tools-test', version: '1.0.0' });
    await client.connect(new LegacyHttp(new URL(`http://127.0.0.1:${mcp.addresses.http!.port}/mcp`)));
  });
  after(async () => {
    await client.close();
    await mcp.close();
  });

  it('hands a pool process the schema output: defaults filled, transforms applied', async () => {
    const defaulted = await client.callTool({ name: 'total_zod', arguments: { values: [250, 750] } });
    assert.equal(defaulted.isError, undefined, text(defaulted));
    const { label, seconds, pid } = defaulted.structuredContent as {
      label: string;
      seconds: number;
      pid: number;
    };
    assert.equal(label, 'total');
    assert.equal(seconds, 1, 'unit defaulted to ms and was turned into a factor of 0.001');
    assert.notEqual(pid, process.pid, 'the handler ran in a pool process');
    const given = await client.callTool({
      name: 'total_zod',
      arguments: { values: [2, 3], label: 'wait', unit: 's' },
    });
    assert.deepEqual(
      { ...(given.structuredContent as object), pid: 0 },
      { label: 'wait', seconds: 5, pid: 0 },
    );
  });

  it('publishes what the client may send: defaulted fields are optional in the inputSchema', async () => {
    const { tools } = await client.listTools();
    const total = tools.find((tool) => tool.name === 'total_zod')!;
    assert.deepEqual(total.inputSchema.required, ['values']);
    assert.deepEqual(
      (total.inputSchema.properties as Record<string, { default?: unknown }>).unit?.default,
      'ms',
    );
    assert.deepEqual(total.outputSchema?.required, ['label', 'seconds', 'pid']);
  });

  it('awaits an async refinement before the call, and names the path it refuses', async () => {
    const taken = await client.callTool({ name: 'claim_zod', arguments: { user: 'root' } });
    assert.equal(taken.isError, true);
    assert.equal(text(taken), 'Invalid arguments for tool "claim_zod": "user": that name is taken');
    const free = await client.callTool({ name: 'claim_zod', arguments: { user: 'alice' } });
    assert.equal(text(free), 'claimed alice');
  });

  it('refuses output that breaks a zod outputSchema, naming the field', async () => {
    mcp.tool({
      name: 'broken_zod',
      inputSchema: z.object({}),
      outputSchema: z.object({ count: z.number() }),
      handler: () => ({ count: 'three' }) as never,
    });
    const broken = await client.callTool({ name: 'broken_zod', arguments: {} });
    assert.equal(broken.isError, true);
    assert.match(text(broken), /does not match its outputSchema: "count": /);
  });
});

describe('zod schemas weft cannot publish are refused at registration', () => {
  it('refuses a schema whose root is not an object', () => {
    assert.throws(
      () => server().tool({ name: 'a', inputSchema: z.string() as never, handler: () => 'x' }),
      (error: Error) =>
        error instanceof ToolRegistrationError &&
        /inputSchema must describe an object at its root/.test(error.message),
    );
  });

  it('refuses a schema that does not convert to JSON Schema, saying why', () => {
    assert.throws(
      () => server().tool({ name: 'a', inputSchema: z.object({ when: z.date() }), handler: () => 'x' }),
      (error: Error) =>
        error instanceof ToolRegistrationError &&
        /inputSchema does not convert to JSON Schema 2020-12 \(.*Date.*\)/.test(error.message),
    );
  });

  it('refuses a Standard Schema without a JSON Schema converter, naming its vendor', () => {
    const validateOnly = {
      '~standard': { version: 1, vendor: 'handmade', validate: (value: unknown) => ({ value }) },
    } as const;
    assert.throws(
      () => server().tool({ name: 'a', inputSchema: validateOnly, handler: () => 'x' }),
      /inputSchema is a handmade schema that cannot give a JSON Schema/,
    );
  });

  it('checks structuredFailure against a zod outputSchema', () => {
    const outputSchema = z.object({ count: z.number() });
    assert.throws(
      () =>
        server().tool({
          name: 'a',
          inputSchema: z.object({}),
          outputSchema,
          structuredFailure: { error: { count: 'none' } as never },
          handler: () => ({ count: 1 }),
        }),
      /structuredFailure\.error does not match the outputSchema: "count": /,
    );
  });
});
