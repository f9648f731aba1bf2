/**
 * Starts the demo server as a child process on ephemeral ports (`--http 0 --ws 0`) and reads the
 * addresses it announces, so transport tests exercise the real command line.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const DEMO_SERVER = fileURLToPath(new URL('../../examples/demo-server.js', import.meta.url));

export interface DemoProcess {
  httpUrl: URL;
  wsUrl: URL;
  child: ChildProcess;
  stop(): Promise<void>;
}

export function startDemo(args: string[] = []): Promise<DemoProcess> {
  const child = spawn(process.execPath, [DEMO_SERVER, '--http', '0', '--ws', '0', ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`the demo did not start:\n${output}`)), 10_000);
    child.once('exit', (code) => reject(new Error(`the demo exited with ${code}:\n${output}`)));
    child.stderr!.on('data', (chunk) => {
      output += chunk;
      const http = /Streamable HTTP at (\S+)/.exec(output);
      const ws = /WebSocket at (\S+)/.exec(output);
      if (http && ws) {
        clearTimeout(timer);
        resolve({
          httpUrl: new URL(http[1]!),
          wsUrl: new URL(ws[1]!),
          child,
          stop: () =>
            new Promise((done) => {
              if (child.exitCode !== null) return done();
              child.once('exit', () => done());
              child.kill('SIGTERM');
            }),
        });
      }
    });
  });
}
