/**
 * Starts test/e2e/modern-server.ts as a child process serving Streamable HTTP on an ephemeral port
 * and reads the address it announces, so the modern-client tests know the server's URL and pid
 * (its CPU time is read from /proc).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const MODERN_SERVER = fileURLToPath(new URL('./modern-server.js', import.meta.url));

export interface ModernServerProcess {
  url: URL;
  pid: number;
  stop(): Promise<void>;
}

export function startModernServer(): Promise<ModernServerProcess> {
  const child = spawn(process.execPath, [MODERN_SERVER, '--http', '0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`the server did not start:\n${output}`)), 10_000);
    child.once('exit', (code) => reject(new Error(`the server exited with ${code}:\n${output}`)));
    child.stderr!.on('data', (chunk) => {
      output += chunk;
      const address = /weft modern e2e: (\S+)/.exec(output);
      if (!address) return;
      clearTimeout(timer);
      resolve({
        url: new URL(address[1]!),
        pid: child.pid!,
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
