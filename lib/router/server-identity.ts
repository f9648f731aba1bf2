/**
 * Who the server is, as both eras tell clients: its serverInfo, its instructions, and its
 * capabilities (computed when asked, so they follow what is registered at that moment).
 */
export interface ServerIdentity {
  serverInfo: { name: string; version: string; title?: string };
  instructions?: string;
  capabilities: () => Record<string, unknown>;
}
