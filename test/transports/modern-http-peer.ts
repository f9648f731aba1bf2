/**
 * A bare 2026-07-28 Streamable HTTP peer on fetch: it writes the envelope and the standard headers a
 * conforming client sends, and lets a test drop or change any of them to see the server's answer.
 */

export const MODERN_VERSION = '2026-07-28';

export const envelope = (overrides: Record<string, unknown> = {}) => ({
  'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'modern-peer', version: '1' },
  ...overrides,
});

/** The headers a conforming client derives from the body: version, Mcp-Method, Mcp-Name. */
export function standardHeaders(
  method: string,
  params: Record<string, unknown> = {},
): Record<string, string> {
  const headers: Record<string, string> = { 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': method };
  const name =
    method === 'resources/read'
      ? params.uri
      : method === 'tools/call' || method === 'prompts/get'
        ? params.name
        : undefined;
  if (typeof name === 'string') headers['mcp-name'] = name;
  return headers;
}

/** JSON read off the wire; tests reach into it and let assertions say what was wrong. */
// biome-ignore lint/suspicious/noExplicitAny: wire JSON is whatever the server sent
export type Wire = any;

export interface ModernReply {
  status: number;
  contentType: string | null;
  headers: Headers;
  /** The parsed JSON body (undefined for an empty one or an SSE stream). */
  body: Wire;
  raw: string;
}

let nextId = 1;

export class ModernHttpPeer {
  /** `fetchImpl`: how requests go out (test/support/fetch-from.ts sends from another address). */
  constructor(
    readonly url: string,
    readonly fetchImpl: typeof fetch = fetch,
  ) {}

  /**
   * POSTs `method` with `params` (the envelope is added unless params carries its own `_meta`, or
   * `_meta: undefined` to send none). `headers` are merged over the standard ones; a `null` value
   * removes that header.
   */
  async request(
    method: string,
    params: Record<string, unknown> = {},
    headers: Record<string, string | null> = {},
    options: { id?: number | string; signal?: AbortSignal } = {},
  ): Promise<ModernReply> {
    const withMeta = '_meta' in params ? params : { ...params, _meta: envelope() };
    if (withMeta._meta === undefined) delete withMeta._meta;
    const body = { jsonrpc: '2.0', id: options.id ?? nextId++, method, params: withMeta };
    return this.send(body, { ...standardHeaders(method, params), ...headers }, options.signal);
  }

  async send(
    body: unknown,
    headers: Record<string, string | null>,
    signal?: AbortSignal,
  ): Promise<ModernReply> {
    const sent: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    for (const [name, value] of Object.entries(headers)) {
      for (const existing of Object.keys(sent))
        if (existing.toLowerCase() === name.toLowerCase()) delete sent[existing];
      if (value !== null) sent[name] = value;
    }
    const response = await this.fetchImpl(this.url, {
      method: 'POST',
      headers: sent,
      body: JSON.stringify(body),
      ...(signal ? { signal } : {}),
    });
    const raw = await response.text();
    const contentType = response.headers.get('content-type');
    let parsed: unknown;
    if (contentType?.startsWith('application/json') && raw !== '') parsed = JSON.parse(raw);
    return { status: response.status, contentType, headers: response.headers, body: parsed, raw };
  }
}

/** The JSON-RPC messages of an SSE body, in order (comments and empty events skipped). */
export function sseMessages(raw: string): Wire[] {
  return raw
    .split('\n\n')
    .flatMap((block) => block.split('\n').filter((line) => line.startsWith('data:')))
    .map((line) => line.slice('data:'.length).trim())
    .filter((data) => data !== '')
    .map((data) => JSON.parse(data));
}
