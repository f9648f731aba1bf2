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

/** What a mount hears of its transport besides messages. */
export interface TransportHooks {
  /** An HTTP upstream's standalone (legacy GET) stream ended while the link was open. */
  onServerStreamEnd?: (error: Error | undefined) => void;
}

export function transportOf(upstream: Upstream, hooks: TransportHooks = {}): ClientTransport {
  if (typeof upstream === 'string' || upstream instanceof URL) return transportOf({ url: upstream }, hooks);
  if ('command' in upstream) return new StdioClientTransport({ ...upstream, stderr: 'inherit' });
  if ('url' in upstream) {
    const url = new URL(upstream.url);
    const options = {
      headers: upstream.headers,
      token: upstream.token,
      onServerStreamEnd: hooks.onServerStreamEnd,
    };
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
