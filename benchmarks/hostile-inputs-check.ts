/**
 * The hardening issue's "Done when" figures, measured on the built server over real HTTP on
 * 127.0.0.1: how long hostile inputs that used to cost quadratic time take to be answered, beside a
 * normal request. Each case is sent ROUNDS times in a row; the median and the worst are printed.
 * Round trips on a loaded machine include the client's own time, so the event-loop cost of each
 * input is printed too: the header checks called directly, and a legacy resources/read served
 * through an in-process connection (a URI of 32,000 dots cannot travel in a modern Mcp-Name header:
 * Node refuses headers over 16 KiB with 431).
 *
 *   npm run build && node dist/benchmarks/hostile-inputs-check.js
 */
import { McpServer } from '../lib/index.js';
import { checkModernRequest } from '../lib/transports/modern-request-checks.js';

const ROUNDS = 20;
const VERSION = '2026-07-28';

const server = new McpServer({ name: 'hostile-inputs', version: '1' })
  .tool({ name: 'echo', inputSchema: { type: 'object', properties: {} }, handler: () => 'ok' })
  .resourceTemplate({
    uriTemplate: 'app://{owner}.{repo}',
    name: 'repo',
    read: (_uri, v) => `${v.owner}/${v.repo}`,
  });
await server.listen({ http: { port: 0 }, handleSignals: false });
const url = `http://127.0.0.1:${server.addresses.http!.port}/mcp`;
const meta = {
  'io.modelcontextprotocol/protocolVersion': VERSION,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
};

async function post(method: string, params: Record<string, unknown>, headers: Record<string, string>) {
  const started = performance.now();
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': VERSION,
      'mcp-method': method,
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: meta } }),
  });
  const text = await response.text();
  return { ms: performance.now() - started, status: response.status, text };
}

const spaces = (count: number) => `a${' '.repeat(count)}a`;
const cases: [string, () => ReturnType<typeof post>][] = [
  ['normal tools/call', () => post('tools/call', { name: 'echo', arguments: {} }, { 'mcp-name': 'echo' })],
  [
    'MCP-Protocol-Version: a + 15,500 spaces + a',
    () => post('tools/list', {}, { 'mcp-protocol-version': spaces(15_500) }),
  ],
  [
    'Mcp-Method: 12,000 spaces around it (under the cap)',
    () => post('tools/list', {}, { 'mcp-method': `${' '.repeat(6000)}tools/list${' '.repeat(6000)}` }),
  ],
  [
    'resources/read app:// + 8,000 dots + / (under the cap)',
    () => {
      const uri = `app://${'.'.repeat(8_000)}/`;
      return post('resources/read', { uri }, { 'mcp-name': uri });
    },
  ],
];

for (const [name, run] of cases) {
  const times: number[] = [];
  let last: Awaited<ReturnType<typeof post>> | undefined;
  for (let round = 0; round < ROUNDS; round++) {
    last = await run();
    times.push(last.ms);
  }
  times.sort((a, b) => a - b);
  const answer = last!.text.slice(0, 90).replace(/\s+/g, ' ');
  process.stdout.write(
    `${name}: median ${times[ROUNDS >> 1]!.toFixed(1)} ms, worst ${times.at(-1)!.toFixed(1)} ms (HTTP ${last!.status}: ${answer})\n`,
  );
}

const median = (run: () => Promise<void> | void) => async () => {
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return `median ${times[ROUNDS >> 1]!.toFixed(2)} ms, worst ${times.at(-1)!.toFixed(2)} ms`;
};
const routing = { knows: () => true, headerParamsOf: () => [], requiredScopes: () => undefined };
const headerCost = median(() => {
  checkModernRequest(
    { 'mcp-protocol-version': spaces(15_500), 'mcp-method': 'tools/list' },
    'tools/list',
    { _meta: meta },
    routing,
  );
});
process.stdout.write(`event loop, header checks of a 15,500-space header: ${await headerCost()}\n`);
let answered: () => void = () => {};
const connection = server.connect({ send: () => answered() });
await new Promise<void>((resolve) => {
  answered = resolve;
  connection.receive({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
  });
});
let id = 1;
const uriCost = median(
  () =>
    new Promise<void>((resolve) => {
      answered = resolve;
      connection.receive({
        jsonrpc: '2.0',
        id: id++,
        method: 'resources/read',
        params: { uri: `app://${'.'.repeat(32_000)}/` },
      });
    }),
);
process.stdout.write(`event loop, resources/read of app:// + 32,000 dots + /: ${await uriCost()}\n`);
connection.close();
await server.close();
