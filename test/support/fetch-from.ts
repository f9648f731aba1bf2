/**
 * `fetch` from a chosen local address (127.0.0.2, 127.0.0.3...): on Linux every 127.x address is
 * loopback, so one test process can be several hosts to the server, which counts callers by
 * address. Node's fetch cannot bind its socket, so this is fetch's shape over `node:http`, enough
 * for the official SDK clients (their `fetch` option) and the suites' bare peers: method, headers,
 * a string body, an abort signal, and a streamed response body (SSE).
 */
import { request } from 'node:http';
import { Readable } from 'node:stream';

export function fetchFrom(localAddress: string): typeof fetch {
  return ((input: string | URL | Request, init: RequestInit = {}) =>
    new Promise<Response>((resolve, reject) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      const headers: Record<string, string> = {};
      new Headers(init.headers).forEach((value, name) => {
        headers[name] = value;
      });
      const outgoing = request(url, { method: init.method ?? 'GET', headers, localAddress }, (incoming) => {
        const answer = new Headers();
        for (const [name, value] of Object.entries(incoming.headers)) {
          for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
            answer.append(name, one);
          }
        }
        const status = incoming.statusCode ?? 0;
        const empty = status === 204 || status === 304 || init.method === 'HEAD';
        if (empty) incoming.resume();
        const body = empty ? null : (Readable.toWeb(incoming) as ReadableStream<Uint8Array>);
        resolve(new Response(body, { status, headers: answer }));
      });
      const signal = init.signal;
      if (signal) {
        if (signal.aborted) outgoing.destroy(signal.reason);
        signal.addEventListener('abort', () => outgoing.destroy(signal.reason), { once: true });
      }
      outgoing.once('error', reject);
      outgoing.end(typeof init.body === 'string' ? init.body : undefined);
    })) as typeof fetch;
}
