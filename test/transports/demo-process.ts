/**
 * Starts the demo server as a child process on ephemeral ports (`--http 0 --ws 0`) and reads the
 * addresses it announces, so transport tests exercise the real command line.
 */
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startReadyChild } from '../support/ready-child.js';

const DEMO_SERVER = fileURLToPath(new URL('../../examples/demo-server.js', import.meta.url));

export interface DemoProcess {
  httpUrl: URL;
  wsUrl: URL;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function startDemo(args: string[] = []): Promise<DemoProcess> {
  const { child, ready } = await startReadyChild([DEMO_SERVER, '--http', '0', '--ws', '0', ...args], {
    name: 'the demo',
    ready: (output) => {
      const http = /Streamable HTTP at (\S+)/.exec(output);
      const ws = /WebSocket at (\S+)/.exec(output);
      return http && ws ? { http: http[1]!, ws: ws[1]! } : undefined;
    },
  });
  return {
    httpUrl: new URL(ready.http),
    wsUrl: new URL(ready.ws),
    child,
    stop: () =>
      new Promise((done) => {
        if (child.exitCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
      }),
  };
}
