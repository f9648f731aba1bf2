/**
 * What `server.mount` accepts as an upstream, and the client transport each one needs: a command
 * to spawn (stdio), an http(s) or ws(s) URL (with headers or a token), or an McpServer in the same
 * process. A fresh transport is made for every (re)connection.
 */
import type { ClientTransport } from '../client/client-transport.js';
import { HttpClientTransport, type TokenProvider } from '../client/http-client-transport.js';
import { StdioClientTransport } from '../client/stdio-client-transport.js';
import { WebSocketClientTransport } from '../client/websocket-client-transport.js';
import { type Connectable, InProcessTransport } from './in-process-transport.js';

export interface CommandUpstream {
  command: string;
  args?: readonly string[];
  env?: Readonly<Record<string, string | undefined>>;
  cwd?: string;
}

export interface UrlUpstream {
  url: string | URL;
  headers?: Readonly<Record<string, string>>;
  token?: TokenProvider;
}

export type Upstream = CommandUpstream | UrlUpstream | string | URL | Connectable;

export function describeUpstream(upstream: Upstream): string {
  if (typeof upstream === 'string' || upstream instanceof URL) return String(upstream);
  if ('command' in upstream) return [upstream.command, ...(upstream.args ?? [])].join(' ');
  if ('url' in upstream) return String(upstream.url);
  return 'an in-process server';
}

export function transportOf(upstream: Upstream): ClientTransport {
  if (typeof upstream === 'string' || upstream instanceof URL) return transportOf({ url: upstream });
  if ('command' in upstream) return new StdioClientTransport({ ...upstream, stderr: 'inherit' });
  if ('url' in upstream) {
    const url = new URL(upstream.url);
    const options = { headers: upstream.headers, token: upstream.token };
    return url.protocol === 'ws:' || url.protocol === 'wss:'
      ? new WebSocketClientTransport(url, options)
      : new HttpClientTransport(url, options);
  }
  if (typeof (upstream as Connectable).connect === 'function')
    return new InProcessTransport(upstream as Connectable);
  throw new TypeError(
    'server.mount(upstream): upstream must be { command, args?, env? }, a URL (http(s) or ws(s)), { url, headers?, token? }, or an McpServer',
  );
}
