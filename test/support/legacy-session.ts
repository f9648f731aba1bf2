/**
 * A legacy (2025-11-25) session over Streamable HTTP, bare: `initialize` and `ping` as the session
 * suites send them, through any fetch (fetch-from.ts sends from another 127.x address).
 */
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** Initializes a session; its status and `Mcp-Session-Id` (null when refused). */
export async function initializeSession(
  url: string,
  fetchImpl: typeof fetch = fetch,
): Promise<{ status: number; id: string | null }> {
  const response = await fetchImpl(url, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'flood', version: '1' },
      },
    }),
  });
  await response.text();
  return { status: response.status, id: response.headers.get('mcp-session-id') };
}

/** Pings session `session`; the HTTP status. */
export async function pingSession(
  url: string,
  session: string,
  fetchImpl: typeof fetch = fetch,
): Promise<number> {
  const response = await fetchImpl(url, {
    method: 'POST',
    headers: { ...HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  await response.text();
  return response.status;
}
