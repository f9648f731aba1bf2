/**
 * Starts a test server script as a child process on an ephemeral HTTP port and waits for the address
 * it announces on stderr (`<marker>: <url>`), so a test knows the URL and the pid (CPU time from /proc).
 */
import { spawn } from 'node:child_process';

export interface AnnouncedServer {
  url: URL;
  pid: number;
  stop(): Promise<void>;
}

export function startAnnouncedServer(
  script: string,
  marker: string,
  args: string[] = [],
): Promise<AnnouncedServer> {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  const announcement = new RegExp(`${marker}: (\\S+)`);
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`the server did not start:\n${output}`)), 10_000);
    child.once('exit', (code) => reject(new Error(`the server exited with ${code}:\n${output}`)));
    child.stderr!.on('data', (chunk) => {
      output += chunk;
      const address = announcement.exec(output);
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
