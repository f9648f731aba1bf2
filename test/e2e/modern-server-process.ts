/**
 * Starts test/e2e/modern-server.ts as a child process serving Streamable HTTP on an ephemeral port,
 * so the modern-client tests know the server's URL and pid (its CPU time is read from /proc).
 */
import { fileURLToPath } from 'node:url';
import { type AnnouncedServer, startAnnouncedServer } from '../support/announced-server.js';

export const MODERN_SERVER = fileURLToPath(new URL('./modern-server.js', import.meta.url));

export type ModernServerProcess = AnnouncedServer;

export function startModernServer(): Promise<ModernServerProcess> {
  return startAnnouncedServer(MODERN_SERVER, 'weft modern e2e', ['--http', '0']);
}
