/**
 * A weft gateway for the overhead benchmark: mounts the upstream at the URL given as its argument
 * (no namespace) and serves Streamable HTTP on a free port of 127.0.0.1, announced on stderr as
 * `gateway at <url>`.
 */
import { McpServer } from '../../lib/index.js';

const upstream = process.argv[2];
if (!upstream) {
  process.stderr.write('usage: gateway-server <upstream URL>\n');
  process.exit(2);
}
const gateway = new McpServer({ name: 'bench-gateway', version: '0.0.0' });
await gateway.mount(upstream);
await gateway.listen({ http: { port: 0, host: '127.0.0.1' } });
process.stderr.write(`gateway at http://127.0.0.1:${gateway.addresses.http?.port}/mcp\n`);
