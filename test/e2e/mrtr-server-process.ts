/**
 * Starts test/e2e/mrtr-server.ts as a child process serving Streamable HTTP on an ephemeral port,
 * with extra arguments (a shared requestStateKey, a short state life), and reads the address it
 * announces.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const MRTR_SERVER = fileURLToPath(new URL('./mrtr-server.js', import.meta.url));

export interface ServerProcess {
  url: string;
  stop(): Promise<void>;
}

/** Starts test/e2e/mrtr-server.ts on an ephemeral HTTP port with the given extra arguments. */
export function startMrtrServer(extra: string[] = []): Promise<ServerProcess> {
  const child = spawn(process.execPath, [MRTR_SERVER, '--http', '0', ...extra], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`the server did not start:\n${output}`)), 10_000);
    child.once('exit', (code) => reject(new Error(`the server exited with ${code}:\n${output}`)));
    child.stderr!.on('data', (chunk) => {
      output += chunk;
      const address = /weft mrtr e2e: (\S+)/.exec(output);
      if (!address) return;
      clearTimeout(timer);
      resolve({
        url: address[1]!,
        stop: () =>
          new Promise((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}
