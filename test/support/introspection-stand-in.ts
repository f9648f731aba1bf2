/**
 * A stand-in introspection endpoint, for what oidc-provider will not do on demand (answer slowly,
 * answer 429, answer a made-up token as active): each request's answer comes from the test's
 * function, and it counts the requests and how many it held at once.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StandInAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface StandIn {
  url: string;
  readonly count: number;
  readonly peak: number;
  close(): Promise<void>;
}

/** `answer` gets the token asked about (the form's `token`). */
export async function standIn(answer: (token: string) => Promise<StandInAnswer>): Promise<StandIn> {
  let count = 0;
  let open = 0;
  let peak = 0;
  const server: Server = createServer((request, response) => {
    count++;
    open++;
    peak = Math.max(peak, open);
    formToken(request)
      .then(answer)
      .then(({ status, body, headers }) => {
        open--;
        response.writeHead(status, { 'content-type': 'application/json', ...headers });
        response.end(JSON.stringify(body));
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/introspect`,
    get count() {
      return count;
    },
    get peak() {
      return peak;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function formToken(request: IncomingMessage): Promise<string> {
  let text = '';
  request.setEncoding('utf8');
  for await (const chunk of request) text += chunk;
  return new URLSearchParams(text).get('token') ?? '';
}
