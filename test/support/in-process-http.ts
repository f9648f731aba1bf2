/**
 * Drives a `node:http` request handler in-process, without sockets: a request object carrying an
 * already-parsed body (as Express hands one over) and a response that records what was written.
 * For tests that must run a transport's real code paths many thousand times (session churn), where
 * a loopback socket per request would be the whole cost.
 */
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface Exchange {
  status: number;
  headers: Record<string, string>;
  body: string;
}

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

class RecordingResponse extends EventEmitter {
  statusCode = 200;
  headersSent = false;
  destroyed = false;
  writableLength = 0;
  readonly #headers = new Map<string, string>();
  #body = '';
  #finished = false;
  readonly done: Promise<Exchange>;
  #resolve!: (exchange: Exchange) => void;

  constructor() {
    super();
    this.done = new Promise((resolve) => {
      this.#resolve = resolve;
    });
  }

  setHeader(name: string, value: string): this {
    this.#headers.set(name.toLowerCase(), String(value));
    return this;
  }
  getHeader(name: string): string | undefined {
    return this.#headers.get(name.toLowerCase());
  }
  getHeaderNames(): string[] {
    return [...this.#headers.keys()];
  }
  removeHeader(name: string): void {
    this.#headers.delete(name.toLowerCase());
  }
  writeHead(status: number, headers: Record<string, string> = {}): this {
    this.statusCode = status;
    for (const [name, value] of Object.entries(headers)) this.setHeader(name, value);
    this.headersSent = true;
    return this;
  }
  flushHeaders(): void {
    this.headersSent = true;
  }
  /** Corking only batches a socket's writes; recorded text is the same either way. */
  cork(): void {}
  uncork(): void {}
  write(text: string): boolean {
    this.headersSent = true;
    this.#body += text;
    return true;
  }
  end(text?: string): this {
    if (this.#finished) return this;
    this.#finished = true;
    if (text) this.#body += text;
    this.headersSent = true;
    this.#resolve({ status: this.statusCode, headers: Object.fromEntries(this.#headers), body: this.#body });
    // As node:http does: 'close' follows the end, on a later tick.
    process.nextTick(() => this.emit('close'));
    return this;
  }
  destroy(): this {
    this.destroyed = true;
    return this.end();
  }
}

/** Sends one request through `handler` and resolves with what it answered once the answer ended. */
export function exchange(
  handler: Handler,
  method: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<Exchange> {
  const request = Object.assign(new EventEmitter(), {
    method,
    url: '/mcp',
    headers: { host: '127.0.0.1', ...headers },
    socket: { remoteAddress: '127.0.0.1', remotePort: 1 },
    ...(body === undefined ? {} : { body }),
  });
  const response = new RecordingResponse();
  handler(request as unknown as IncomingMessage, response as unknown as ServerResponse);
  return response.done;
}
