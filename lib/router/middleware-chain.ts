/**
 * Middleware: the onion of `(ctx, next)` hooks a server's author wraps around dispatch
 * (`server.use(...)`), and the one place that runs it.
 *
 * A middleware is a function (it sees every request) or an object of hooks by request kind:
 * `onRequest` (every request), `onCallTool`, `onList` (the four lists), `onReadResource`,
 * `onGetPrompt`, and `onNotification` (notifications from the client). Per middleware, in the order
 * they were installed, the outermost hook is `onRequest`, then the hook for the request's kind; the
 * first middleware installed is the outermost layer. A hook may answer on its own (return without
 * calling `next`), change `ctx.params` before `next()` or the result after it, or throw a
 * ProtocolError, which the client receives as that JSON-RPC error.
 *
 * It runs on the main thread, around the router's dispatch: a hook that blocks stalls every
 * client. Blocking tools still run on the pool; `next()` only waits for them. It runs for the
 * requests clients send, not for the calls a handler makes to its own server (`ctx.tools().call`),
 * which their outer request already went through.
 *
 * The router holds no chain until the first `use()`, so a server without middleware pays one
 * `undefined` check per request. A hook sees a tools/call result as its plain object: with a chain
 * installed the result is encoded after the chain, not before, so a hook may change it in place.
 */
import type { Principal } from '../auth/principal.js';
import type { CacheableMethod, CacheScope, Era } from '../protocol/eras.js';
import { MODERN_METHODS } from '../protocol/eras.js';
import type { RequestId } from '../protocol/json-rpc.js';
import { EncodedResult } from '../protocol/message-encoding.js';
import { type CacheOptions, resolveCacheHint } from './cache-hints.js';
import type { MethodContext, MethodHandler } from './method-table.js';
import type { Session } from './session.js';

/** What a hook knows about the request (or notification) it wraps. */
export interface MiddlewareContext {
  /** The JSON-RPC method: `tools/call`, `tools/list`, `notifications/cancelled`... */
  readonly method: string;
  /** The request's id; undefined for a notification. */
  readonly id: RequestId | undefined;
  /** The params dispatch will see: assign a new object (or change this one) before `next()`. */
  params: Record<string, unknown>;
  /** `'legacy'` (initialize, sessions) or `'modern'` (2026-07-28, stateless). */
  readonly era: Era;
  /** The protocol version the request is served under (undefined: a legacy client not initialized). */
  readonly version: string | undefined;
  /** Who is calling, as the transport's auth hook vouched (undefined without auth). */
  readonly principal: Principal | undefined;
  /** The client's `{name, version}`, when it said. */
  readonly clientInfo: Record<string, unknown> | undefined;
  /** The capabilities the client declared for this request. */
  readonly clientCapabilities: Record<string, unknown>;
  /** When the request reached the router, in epoch milliseconds. */
  readonly startedAt: number;
  /** Milliseconds since the request reached the router (monotonic clock). */
  elapsedMs(): number;
  /**
   * The cache hints this server gives the method's results (the `cache` option), for the six
   * cacheable methods; undefined for the others. The same in both eras, though only modern
   * results carry them on the wire.
   */
  readonly cacheHint: { readonly ttlMs: number; readonly cacheScope: CacheScope } | undefined;
}

/**
 * Runs the rest of the onion (and finally the method) and resolves with its result, or rejects
 * with its error. It resolves with NO_ANSWER when nothing is to be sent (a cancelled call).
 */
export type Next = () => Promise<unknown>;

export type MiddlewareHook = (ctx: MiddlewareContext, next: Next) => unknown;

export interface MiddlewareHooks {
  /** Every request, around its kind's own hook. */
  onRequest?: MiddlewareHook;
  onCallTool?: MiddlewareHook;
  /** tools/list, prompts/list, resources/list and resources/templates/list. */
  onList?: MiddlewareHook;
  onReadResource?: MiddlewareHook;
  onGetPrompt?: MiddlewareHook;
  /** Notifications from the client; `next()` resolves with undefined once the server handled it. */
  onNotification?: MiddlewareHook;
}

export type Middleware = MiddlewareHook | MiddlewareHooks;

const HOOK_NAMES = [
  'onRequest',
  'onCallTool',
  'onList',
  'onReadResource',
  'onGetPrompt',
  'onNotification',
] as const satisfies readonly (keyof MiddlewareHooks)[];

type KindHook = Exclude<keyof MiddlewareHooks, 'onRequest' | 'onNotification'>;

const KIND_OF_METHOD: ReadonlyMap<string, KindHook> = new Map([
  ['tools/call', 'onCallTool'],
  ['tools/list', 'onList'],
  ['prompts/list', 'onList'],
  ['resources/list', 'onList'],
  ['resources/templates/list', 'onList'],
  ['resources/read', 'onReadResource'],
  ['prompts/get', 'onGetPrompt'],
]);

/** Refuses at `use()` what is not a middleware, with a message that says what one looks like. */
function checkMiddleware(middleware: unknown): asserts middleware is Middleware {
  if (typeof middleware === 'function') return;
  if (typeof middleware !== 'object' || middleware === null || Array.isArray(middleware)) {
    throw new TypeError(
      'server.use: a middleware is a function (ctx, next) => ... or an object of hooks such as { onCallTool(ctx, next) { ... } }',
    );
  }
  for (const [key, value] of Object.entries(middleware)) {
    if (key === 'name') continue;
    if (!(HOOK_NAMES as readonly string[]).includes(key)) {
      throw new TypeError(`server.use: unknown middleware hook "${key}". Known: ${HOOK_NAMES.join(', ')}`);
    }
    if (typeof value !== 'function') throw new TypeError(`server.use: ${key} must be a function (ctx, next)`);
  }
}

export class MiddlewareChain {
  readonly #middlewares: Middleware[] = [];
  /** The composed hooks per method (and for notifications), built on first use of each. */
  readonly #hooks = new Map<string, MiddlewareHook[]>();
  readonly #cacheHints = new Map<string, { ttlMs: number; cacheScope: CacheScope }>();

  constructor(cache: CacheOptions | undefined) {
    for (const [method, rule] of MODERN_METHODS) {
      if (rule.cacheable) this.#cacheHints.set(method, resolveCacheHint(cache, method as CacheableMethod));
    }
  }

  add(middleware: unknown): void {
    checkMiddleware(middleware);
    this.#middlewares.push(middleware);
    this.#hooks.clear();
  }

  /** Runs `handler` for one client request inside the onion; resolves with what is to be answered. */
  request(context: MethodContext, handler: MethodHandler): Promise<unknown> {
    const { request, scope } = context;
    const ctx = this.#context(request.method, request.id, context.params, scope, undefined);
    const hooks = this.#hooksFor(request.method, false);
    const final = async () => {
      const value = await handler({ ...context, params: ctx.params });
      return value instanceof EncodedResult ? value.value : value;
    };
    return run(ctx, hooks, final);
  }

  /** Runs a notification's handler inside the onion (only when a middleware has onNotification). */
  notification(
    session: Session,
    method: string,
    params: Record<string, unknown>,
    era: Era,
    handler: ((session: Session, params: Record<string, unknown>) => void) | undefined,
  ): Promise<unknown> | undefined {
    const hooks = this.#hooksFor(method, true);
    if (hooks.length === 0) return undefined;
    const ctx = this.#context(method, undefined, params, undefined, { session, era });
    return run(ctx, hooks, async () => {
      handler?.(session, ctx.params);
      return undefined;
    });
  }

  #context(
    method: string,
    id: RequestId | undefined,
    params: Record<string, unknown>,
    scope: MethodContext['scope'] | undefined,
    notification: { session: Session; era: Era } | undefined,
  ): MiddlewareContext {
    const started = performance.now();
    const session = notification?.session;
    return {
      method,
      id,
      params,
      era: scope?.era ?? notification?.era ?? 'legacy',
      version: scope === undefined ? session?.protocolVersion : scope.version,
      principal: scope === undefined ? session?.principal : scope.principal,
      clientInfo: scope === undefined ? session?.clientInfo : scope.clientInfo,
      clientCapabilities: scope?.clientCapabilities ?? session?.clientCapabilities ?? {},
      startedAt: Date.now(),
      elapsedMs: () => performance.now() - started,
      cacheHint: this.#cacheHints.get(method),
    };
  }

  #hooksFor(method: string, notification: boolean): MiddlewareHook[] {
    const key = notification ? '\0notification' : method;
    let hooks = this.#hooks.get(key);
    if (hooks !== undefined) return hooks;
    hooks = [];
    for (const middleware of this.#middlewares) {
      if (typeof middleware === 'function') {
        if (!notification) hooks.push(middleware);
        continue;
      }
      if (notification) {
        if (middleware.onNotification) hooks.push(middleware.onNotification.bind(middleware));
        continue;
      }
      if (middleware.onRequest) hooks.push(middleware.onRequest.bind(middleware));
      const kind = KIND_OF_METHOD.get(method);
      const own = kind === undefined ? undefined : middleware[kind];
      if (own) hooks.push(own.bind(middleware));
    }
    this.#hooks.set(key, hooks);
    return hooks;
  }
}

/** Calls hooks[0] with a `next` that calls hooks[1]..., and `final` after the last. */
function run(
  ctx: MiddlewareContext,
  hooks: MiddlewareHook[],
  final: () => Promise<unknown>,
): Promise<unknown> {
  const at = (index: number): Promise<unknown> => {
    if (index === hooks.length) return final();
    let called = false;
    const next: Next = () => {
      if (called) return Promise.reject(new Error(`middleware for ${ctx.method} called next() twice`));
      called = true;
      return at(index + 1);
    };
    try {
      return Promise.resolve(hooks[index]!(ctx, next));
    } catch (error) {
      return Promise.reject(error);
    }
  };
  return at(0);
}
