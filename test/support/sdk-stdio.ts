/**
 * Starts a server script as a child process and connects the official MCP SDK client to it over
 * stdio, the way real clients do.
 */
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export const FIXTURE_SERVER = fileURLToPath(new URL('./fixture-server.js', import.meta.url));
export const DEMO_SERVER = fileURLToPath(new URL('../../examples/demo-server.js', import.meta.url));

export interface StdioSession {
  client: Client;
  transport: StdioClientTransport;
  pid: number;
  close(): Promise<void>;
}

export async function connectOverStdio(
  script: string,
  args: string[] = [],
  env: Record<string, string> = {},
  capabilities: Record<string, unknown> = {},
): Promise<StdioSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [script, ...args],
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'weft-test', version: '1.0.0' }, { capabilities });
  await client.connect(transport);
  const pid = transport.pid;
  if (pid === null) throw new Error('the server process did not start');
  return { client, transport, pid, close: () => client.close() };
}

/** CPU seconds (user + system) the process has used so far, from /proc. */
export async function cpuSeconds(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return ticks / 100;
}
