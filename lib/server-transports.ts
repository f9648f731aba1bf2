/**
 * The transports a server listens on (stdio, Streamable HTTP, WebSocket) and the handlers it lends
 * to other HTTP servers: each opens its connections through the server's sessions, and each is kept
 * here so that shutdown can stop them accepting, flush them and close them, in that order.
 */

import type { AddressInfo } from 'node:net';
import type { Principal } from './auth/principal.js';
import { stdioPrincipal } from './auth/stdio-principal.js';
import type { HealthOptions } from './health/health-options.js';
import type { HealthRoutes } from './health/health-routes.js';
import { shutdownAndExit } from './process-signals.js';
import type { PromptRegistry } from './prompts/prompt-registry.js';
import type { ResourceRegistry } from './resources/resource-registry.js';
import type { Router } from './router/router.js';
import { requiredScopesOf, type ScopesOfPrimitives } from './router/scope-check.js';
import type { MessageSink, PeerAddress } from './router/session.js';
import type { ListenOptions } from './server-options.js';
import type { ServerSessions } from './server-sessions.js';
import type { NetworkFacts } from './telemetry/server-telemetry.js';
import type { ToolRegistry } from './tools/tool-registry.js';
import type { AuthHook, AuthTableSizes } from './transports/bearer-auth.js';
import type { ModernRouting } from './transports/modern-request-checks.js';
import { StdioTransport } from './transports/stdio.js';
import { type StreamableHttpOptions, StreamableHttpTransport } from './transports/streamable-http.js';
import type { WebSocketTransport } from './transports/websocket.js';

/** How each transport's peers are reached, for telemetry's `network.*` attributes. */
const PIPE: NetworkFacts = { transport: 'pipe' };
const HTTP: NetworkFacts = { transport: 'tcp', protocolName: 'http' };
const WEBSOCKET: NetworkFacts = { transport: 'tcp', protocolName: 'websocket' };

/** What the transports read of the server: where to open sessions, what HTTP checks before dispatch. */
export interface TransportParts {
  sessions: ServerSessions;
  router: Router;
  tools: ToolRegistry;
  prompts: PromptRegistry;
  resources: ResourceRegistry;
  maxMessageBytes: number;
  logError: (message: string) => void;
  /** Proxies whose forwarding headers name the client (the server's `trustProxy`; caller-identity.ts). */
  trustProxy?: readonly string[];
  /** The liveness and readiness probes an HTTP transport answers (lib/health/). */
  healthRoutes?: (health: false | HealthOptions | undefined, mcpPath: string) => HealthRoutes | undefined;
}

export class ServerTransports {
  readonly #parts: TransportParts;
  #stdio: StdioTransport | undefined;
  readonly #http: StreamableHttpTransport[] = [];
  readonly #ws: WebSocketTransport[] = [];
  /** The auth hooks guarding those doors, each once, for `authTables`. */
  readonly #authHooks = new Set<AuthHook>();
  readonly #addresses: { http?: AddressInfo; ws?: AddressInfo } = {};
  /** What modern HTTP checks before dispatch: the router's methods, the tools' x-mcp-header arguments. */
  readonly #httpRouting: ModernRouting;

  constructor(parts: TransportParts) {
    this.#parts = parts;
    const { router, tools, prompts, resources } = parts;
    /** Where the HTTP door reads the scopes a request's primitive requires. */
    const scopesOfPrimitives: ScopesOfPrimitives = {
      toolScopes: (name) => tools.get(name)?.scopes,
      promptScopes: (name) => prompts.scopesOf(name),
      resourceScopes: (uri) => resources.scopesOf(uri),
      templateScopes: (uriTemplate) => resources.template(uriTemplate)?.scopes,
    };
    this.#httpRouting = {
      knows: (method, era) => router.knows(method, era),
      headerParamsOf: (name) => tools.get(name)?.headerParams,
      requiredScopes: (method, params) => requiredScopesOf(method, params, scopesOfPrimitives),
    };
  }

  /**
   * What the auth hooks of this server's HTTP and WebSocket doors hold for callers, summed over the
   * distinct hooks (one hook often guards both doors); undefined when no hook reports sizes.
   */
  authTables(): AuthTableSizes | undefined {
    let sum: AuthTableSizes | undefined;
    for (const hook of this.#authHooks) {
      const sizes = hook.tableSizes?.();
      if (sizes === undefined) continue;
      sum ??= { verifiedTokens: 0, refusedTokens: 0, verifying: 0, verifyQueued: 0 };
      for (const table of Object.keys(sum) as (keyof AuthTableSizes)[]) sum[table] += sizes[table];
    }
    return sum;
  }

  /** Where `listen` bound its network transports (useful with port 0). */
  get addresses(): { http?: AddressInfo; ws?: AddressInfo } {
    return { ...this.#addresses };
  }

  /** A Streamable HTTP transport of this server (for `handler` and `listen`), kept for close. */
  http(options: StreamableHttpOptions): StreamableHttpTransport {
    const { sessions, maxMessageBytes, logError, trustProxy } = this.#parts;
    const connect = (
      sink: MessageSink,
      id?: string,
      principal?: Principal,
      peer?: PeerAddress,
      caller?: string,
    ) => sessions.open(sink, id, principal, HTTP, peer, caller);
    if (options.auth) this.#authHooks.add(options.auth);
    const health = this.#parts.healthRoutes?.(options.health, options.path ?? '/mcp');
    const transport = new StreamableHttpTransport(
      connect,
      this.#httpRouting,
      { maxBodyBytes: maxMessageBytes, logError, ...(trustProxy ? { trustProxy } : {}), ...options },
      health,
    );
    this.#http.push(transport);
    return transport;
  }

  /**
   * Starts the transports `options` names; when stdio's input ends, the server closes and the process
   * exits (at the latest after `hardStopMs`).
   */
  async listen(options: ListenOptions, close: () => Promise<void>, hardStopMs: number): Promise<void> {
    const { sessions, maxMessageBytes, logError, trustProxy } = this.#parts;
    if (options.stdio) {
      // Stdio has no OAuth (the spec says it SHOULD NOT): a fixed principal may stand in for one.
      const principal = stdioPrincipal(options.stdio);
      const stdio = new StdioTransport((sink) => sessions.open(sink, undefined, principal, PIPE), {
        maxMessageBytes,
      });
      this.#stdio = stdio;
      stdio.ended.then(() => shutdownAndExit(close, logError, hardStopMs));
    }
    if (options.http) {
      const { port, host, ...rest } = options.http;
      this.#addresses.http = await this.http(rest).listen(port, host);
    }
    if (options.ws) {
      const { port, host, ...rest } = options.ws;
      if (rest.auth) this.#authHooks.add(rest.auth);
      // Loaded when a server listens on it: ws stays unloaded for a stdio or HTTP-only server.
      const { WebSocketTransport } = await import('./transports/websocket.js');
      const transport = new WebSocketTransport(
        (sink, id, principal, peer, caller) => sessions.open(sink, id, principal, WEBSOCKET, peer, caller),
        { maxPayload: maxMessageBytes, logError, ...(trustProxy ? { trustProxy } : {}), ...rest },
      );
      this.#ws.push(transport);
      // The HTTP port itself (not 0): WebSocket upgrades are served by the HTTP server.
      const shared = port !== 0 && port === options.http?.port ? this.#http.at(-1)?.httpServer : undefined;
      if (shared) {
        transport.attach(shared);
        this.#addresses.ws = this.#addresses.http;
      } else {
        this.#addresses.ws = await transport.listen(port, host);
      }
    }
  }

  /** The first step of shutdown: stdio reads no more, HTTP takes no new requests, WebSocket no upgrade. */
  stopAccepting(): void {
    this.#stdio?.stopReading();
    for (const transport of this.#http) transport.stopAccepting();
    for (const transport of this.#ws) transport.stopAccepting();
  }

  /** Draining: the HTTP listeners take no new connection (requests on open ones go on). */
  stopListening(): void {
    for (const transport of this.#http) transport.stopListening();
  }

  /** Waits until what stdio was given to write has been written. */
  async flush(): Promise<void> {
    await this.#stdio?.flush();
  }

  /** Closes every HTTP and WebSocket transport (their servers, their open streams). */
  async close(): Promise<void> {
    await Promise.all([...this.#http, ...this.#ws].map((transport) => transport.close()));
  }
}
