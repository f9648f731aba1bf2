/**
 * Starts a test server script as a child process on an ephemeral HTTP port and waits for the address
 * it announces on stderr (`<marker>: <url>`), so a test knows the URL and the pid (CPU time from /proc).
 */
import { startReadyChild } from './ready-child.js';

export interface AnnouncedServer {
  url: URL;
  pid: number;
  stop(): Promise<void>;
}

export async function startAnnouncedServer(
  script: string,
  marker: string,
  args: string[] = [],
): Promise<AnnouncedServer> {
  const announcement = new RegExp(`${marker}: (\\S+)`);
  const { child, ready: address } = await startReadyChild([script, ...args], {
    name: 'the server',
    ready: (output) => announcement.exec(output),
  });
  return {
    url: new URL(address[1]!),
    pid: child.pid!,
    stop: () =>
      new Promise((done) => {
        if (child.exitCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
      }),
  };
}
