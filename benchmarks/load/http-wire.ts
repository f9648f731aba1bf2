/**
 * The Streamable HTTP wire: every message is its own POST to /mcp over a keep-alive agent, so N
 * calls in flight are N concurrent requests. Replies come back as JSON or as an SSE stream; SSE
 * events are delivered as they arrive, not when the stream ends, so latency is the server's.
 */
import { Agent, type IncomingMessage, request } from 'node:http';
import type { Wire, WireMessage } from './wire.js';

/** Resends of one request whose kept-alive socket turned out closed, at most. */
const RESENDS_ON_CLOSED_SOCKETS = 16;

export class HttpWire implements Wire {
  onMessage: (message: WireMessage) => void = () => {};
  onClose: (reason: string) => void = () => {};
  readonly #port: number;
  readonly #agent = new Agent({ keepAlive: true, maxSockets: 512 });
  #sessionId: string | undefined;
  #protocolVersion: string | undefined;
  #failed = false;

  readonly #headers: Record<string, string>;
  readonly #localAddress: string | undefined;

  /**
   * `headers` go with every request (an `authorization` bearer token, for a protected server);
   * `localAddress` is the address its sockets come from (127.0.0.2: another host to the server).
   */
  constructor(port: number, headers: Record<string, string> = {}, options: { localAddress?: string } = {}) {
    this.#port = port;
    this.#headers = headers;
    this.#localAddress = options.localAddress;
  }

  send(message: WireMessage): void {
    this.#post(JSON.stringify(message), this.headersFor(message), RESENDS_ON_CLOSED_SOCKETS);
  }

  #post(body: string, extraHeaders: Record<string, string>, resendsLeft: number): void {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...this.#headers,
    };
    if (this.#sessionId) headers['mcp-session-id'] = this.#sessionId;
    if (this.#protocolVersion) headers['mcp-protocol-version'] = this.#protocolVersion;
    Object.assign(headers, extraHeaders);
    const post = request(
      {
        host: '127.0.0.1',
        port: this.#port,
        path: '/mcp',
        method: 'POST',
        agent: this.#agent,
        headers,
        ...(this.#localAddress ? { localAddress: this.#localAddress } : {}),
      },
      (response) => this.#onResponse(response),
    );
    post.on('error', (error: NodeJS.ErrnoException) => {
      // A kept-alive socket the server closed as idle just as this request went out: the request
      // never reached it, so it is sent again, as HTTP clients do. A large body is still being
      // written when the close lands: EPIPE rather than ECONNRESET. The agent may hand out another
      // socket the server closed in the same sweep (a full run ended so, at an 8 MiB argument), so
      // it is sent again as long as the socket was a reused one (up to 16 times).
      const closedUnderIt = error.code === 'ECONNRESET' || error.code === 'EPIPE';
      if (resendsLeft > 0 && post.reusedSocket && closedUnderIt)
        this.#post(body, extraHeaders, resendsLeft - 1);
      else this.#fail(`HTTP request to port ${this.#port} failed: ${error.message}`);
    });
    post.end(body);
  }

  /** Headers of one message beyond the session's; the stateless era's wire adds its routing headers. */
  protected headersFor(_message: WireMessage): Record<string, string> {
    return {};
  }

  negotiated(protocolVersion: string): void {
    this.#protocolVersion = protocolVersion;
  }

  async close(): Promise<void> {
    this.#failed = true;
    this.#agent.destroy();
  }

  #onResponse(response: IncomingMessage): void {
    const session = response.headers['mcp-session-id'];
    if (typeof session === 'string') this.#sessionId = session;
    const type = response.headers['content-type'] ?? '';
    response.setEncoding('utf8');
    if (type.includes('text/event-stream')) {
      this.#readEvents(response);
      return;
    }
    let body = '';
    response.on('data', (chunk: string) => {
      body += chunk;
    });
    response.on('end', () => {
      if (body.trim() === '') return; // 202 Accepted for a notification
      this.#deliver(body, response.statusCode);
    });
  }

  #readEvents(response: IncomingMessage): void {
    let buffer = '';
    let pieces: string[] = [];
    response.on('data', (chunk: string) => {
      // Event data is JSON, which has no raw newline: a chunk without one is the middle of an
      // event, kept aside rather than appended and searched again (O(n^2) for an 8 MiB answer).
      pieces.push(chunk);
      if (!chunk.includes('\n')) return;
      buffer = pieces.join('');
      pieces = [];
      let end = buffer.search(/\r?\n\r?\n/);
      while (end !== -1) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, '');
        const data = event
          .split(/\r?\n/)
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trimStart())
          .join('\n');
        if (data !== '') this.#deliver(data, response.statusCode);
        end = buffer.search(/\r?\n\r?\n/);
      }
      pieces = [buffer];
    });
  }

  #deliver(text: string, status: number | undefined): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      this.#fail(`HTTP ${status}: a reply that is not JSON: ${text.slice(0, 200)}`);
      return;
    }
    if (Array.isArray(message)) for (const item of message) this.onMessage(item as WireMessage);
    else this.onMessage(message as WireMessage);
  }

  #fail(reason: string): void {
    if (this.#failed) return;
    this.#failed = true;
    this.onClose(reason);
  }
}
