/**
 * Two anonymous 2026-07-28 clients sharing one pool, as the caller-share suites measure it: the
 * official SDK v2 client pinned to the modern era, its requests sent from a chosen 127.x address
 * (fetch-from.ts), and the order in which one client's single call finishes beside the other's
 * flood of `busy` calls (fixture-tools.ts) on a pool of one thread. An order, not a time: a
 * fair share puts the single call among the first few, first come first served puts it last.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { McpServer } from '../../lib/index.js';
import { fetchFrom } from './fetch-from.js';

const PIN = { mode: { pin: '2026-07-28' } } as const;

/** An SDK v2 client of `url`, pinned to 2026-07-28, whose requests come from `from`. */
export async function modernClientFrom(url: string, from: string): Promise<Client> {
  const client = new Client({ name: `client-${from}`, version: '1' }, { versionNegotiation: PIN });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: fetchFrom(from) }));
  return client;
}

/**
 * `heavy` starts 8 `busy {ms: 150}` calls; once 7 wait, `light` makes one. Resolves the finishing
 * order (`heavy 0`..`heavy 7`, `light`) once all are done.
 */
export async function finishingOrder(server: McpServer, heavy: Client, light: Client): Promise<string[]> {
  const finished: string[] = [];
  const call = (client: Client, label: string) =>
    client.callTool({ name: 'busy', arguments: { ms: 150 } }).then(() => finished.push(label));
  const flood = Array.from({ length: 8 }, (_, i) => call(heavy, `heavy ${i}`));
  const deadline = Date.now() + 15_000;
  while (server.stats.queued < 7) {
    if (Date.now() > deadline) throw new Error(`the flood never queued 7 calls (${server.stats.queued})`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await call(light, 'light');
  await Promise.all(flood);
  return finished;
}
