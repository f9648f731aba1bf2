/**
 * A bare-bones Streamable HTTP peer built on fetch, for tests that look at status codes, headers and
 * the SSE framing itself (which the SDK client hides).
 */

export interface SseEvent {
  id?: string;
  data: string;
  retry?: number;
}

export class HttpPeer {
  sessionId: string | undefined;
  constructor(readonly url: string) {}

  post(body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Response> {
    return fetch(this.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(this.sessionId ? { 'mcp-session-id': this.sessionId } : {}),
        ...headers,
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
      ...(signal ? { signal } : {}),
    });
  }

  async initialize(
    capabilities: Record<string, unknown> = {},
    protocolVersion = '2025-11-25',
  ): Promise<Response> {
    const response = await this.post({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion, capabilities, clientInfo: { name: 'peer', version: '1' } },
    });
    this.sessionId = response.headers.get('mcp-session-id') ?? undefined;
    await response.json();
    await this.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return response;
  }

  get(headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Response> {
    return fetch(this.url, {
      headers: {
        accept: 'text/event-stream',
        ...(this.sessionId ? { 'mcp-session-id': this.sessionId } : {}),
        ...headers,
      },
      ...(signal ? { signal } : {}),
    });
  }

  delete(): Promise<Response> {
    return fetch(this.url, {
      method: 'DELETE',
      headers: this.sessionId ? { 'mcp-session-id': this.sessionId } : {},
    });
  }
}

/** Reads SSE events from a response body until it ends or `stop` says enough. */
export async function readEvents(
  response: Response,
  stop: (event: SseEvent, all: SseEvent[]) => boolean = () => false,
): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let cut = buffer.indexOf('\n\n');
    while (cut >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      cut = buffer.indexOf('\n\n');
      const event: SseEvent = { data: '' };
      let sawField = false;
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const text = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        sawField = true;
        if (field === 'id') event.id = text;
        else if (field === 'data') event.data += text;
        else if (field === 'retry') event.retry = Number(text);
      }
      if (!sawField) continue;
      events.push(event);
      if (stop(event, events)) {
        await reader.cancel();
        return events;
      }
    }
  }
  return events;
}

/** The JSON-RPC messages among SSE events (priming events and retry hints carry none). */
export const messagesOf = (events: SseEvent[]) =>
  events.filter((event) => event.data !== '').map((event) => JSON.parse(event.data));
