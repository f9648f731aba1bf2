/**
 * Walks `tools/list` page by page with the official SDK client, as a client that wants every tool
 * does, and the names the demo server lists: what the stdio, HTTP and WebSocket tests expect.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

export const DEMO_TOOL_NAMES = [
  'compress',
  'echo',
  'fib',
  'hash_chain',
  'prime_density',
  'primes',
  'regex_search',
  'regional_echo',
  'spin',
  'wait',
] as const;

export async function listToolNames(client: Client): Promise<{ names: string[]; pages: number }> {
  const names: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    names.push(...page.tools.map((tool) => tool.name));
    cursor = page.nextCursor;
    pages++;
  } while (cursor);
  return { names, pages };
}
