/**
 * The native suite's server, run as a child process on an ephemeral HTTP port (announced on stderr
 * as `weft native: <url>`): the argon2 and sharp tools and their pinned twins, a trivial blocking
 * neighbour, and a thread tool stuck in native code (a slot a termination cannot free). On SIGUSR2 it
 * prints `server.stats` on stderr, so a test can read the lost slots.
 *
 *   node dist/test/native/native-server.js [--threads N] [--timeout-ms N] [--liveness-ms N]
 */
import { parseArgs } from 'node:util';
import { McpServer } from '../../lib/index.js';
import { argonHash, argonHashThread, sharpBlur, sharpBlurThread } from './native-tools.js';
import { nativeBlocked, nativeBusy, trivial } from './plain-tool.js';

const { values } = parseArgs({
  options: {
    threads: { type: 'string', default: '2' },
    'timeout-ms': { type: 'string', default: '1000' },
    'liveness-ms': { type: 'string', default: '60000' },
  },
  strict: true,
});

const server = new McpServer({
  name: 'weft-native',
  version: '0.0.0',
  timeoutMs: Number(values['timeout-ms']),
  pool: {
    maxThreads: Number(values.threads),
    graceMs: 100,
    lostSlotsLivenessMs: Number(values['liveness-ms']),
  },
});
// One registration each: an array of these definitions is a union TypeScript 5.9 cannot infer through.
server.tool(argonHash);
server.tool(sharpBlur);
server.tool(argonHashThread);
server.tool(sharpBlurThread);
server.tool(trivial);
server.tool(nativeBusy);
server.tool(nativeBlocked);

await server.listen({ http: { port: 0, host: '127.0.0.1' } });
process.on('SIGUSR2', () => process.stderr.write(`weft native stats: ${JSON.stringify(server.stats)}\n`));
process.stderr.write(`weft native: http://127.0.0.1:${server.addresses.http!.port}/mcp\n`);
