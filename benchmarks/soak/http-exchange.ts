/**
 * One POST (or DELETE) to a Streamable HTTP endpoint, read to its end: the JSON-RPC messages it
 * carried, whether as JSON or as an SSE stream. The soak's own keep-alive agent, so the load's
 * sockets can be closed at the end and the server's descriptors seen back at their baseline.
 */
import { Agent, request } from 'node:http';

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  messages: Record<string, unknown>[];
}

export class HttpExchanges {
  readonly #agent = new Agent({ keepAlive: true, maxSockets: 64 });
  constructor(readonly port: number) {}

  send(
    method: 'POST' | 'DELETE',
    headers: Record<string, string>,
    body?: string,
    signal?: AbortSignal,
  ): Promise<HttpAnswer> {
    return new Promise((resolve, reject) => {
      const outgoing = request(
        {
          host: '127.0.0.1',
          port: this.port,
          path: '/mcp',
          method,
          agent: this.#agent,
          headers: {
            accept: 'application/json, text/event-stream',
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...headers,
          },
          ...(signal ? { signal } : {}),
        },
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => {
            text += chunk;
          });
          response.on('error', reject);
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              headers: response.headers,
              messages: messagesOf(text, String(response.headers['content-type'] ?? '')),
            }),
          );
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  }

  /** Closes the kept-alive sockets (the server's descriptors for them go too). */
  close(): void {
    this.#agent.destroy();
  }
}

function messagesOf(text: string, type: string): Record<string, unknown>[] {
  if (text.trim() === '') return [];
  const parse = (json: string) => {
    const value = JSON.parse(json) as Record<string, unknown> | Record<string, unknown>[];
    return Array.isArray(value) ? value : [value];
  };
  if (!type.includes('text/event-stream')) return parse(text);
  return text
    .split(/\r?\n\r?\n/)
    .map((event) =>
      event
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n'),
    )
    .filter((data) => data !== '')
    .flatMap(parse);
}
