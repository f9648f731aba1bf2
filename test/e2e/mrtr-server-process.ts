/**
 * Starts test/e2e/mrtr-server.ts as a child process serving Streamable HTTP on an ephemeral port,
 * with extra arguments (a shared requestStateKey, a short state life).
 */
import { fileURLToPath } from 'node:url';
import { startAnnouncedServer } from '../support/announced-server.js';

export const MRTR_SERVER = fileURLToPath(new URL('./mrtr-server.js', import.meta.url));

export interface ServerProcess {
  url: string;
  stop(): Promise<void>;
}

/** Starts test/e2e/mrtr-server.ts on an ephemeral HTTP port with the given extra arguments. */
export async function startMrtrServer(extra: string[] = []): Promise<ServerProcess> {
  const server = await startAnnouncedServer(MRTR_SERVER, 'weft mrtr e2e', ['--http', '0', ...extra]);
  return { url: server.url.href, stop: server.stop };
}
