/**
 * The resource subscriptions a mount holds upstream on behalf of weft's clients.
 *
 * Each one costs the upstream a long-lived stream (modern: a `subscriptions/listen` stream per
 * URI) or a session entry (legacy: `resources/subscribe`), so it has an owner count and a bound:
 * - one upstream subscription per URI, shared by every local subscriber (legacy sessions and
 *   listen streams alike), released when the last of them leaves (modern: its stream closed;
 *   legacy: `resources/unsubscribe`);
 * - at most `max` URIs at once per mount (`maxWatchedUris`, default 1000): one more is refused
 *   with -32013 naming the limit, before anything is opened;
 * - after a reconnection, only the URIs someone still watches are subscribed again.
 */
import type { McpClient } from '../client/mcp-client.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { ProtocolError } from '../protocol/protocol-error.js';
import { capabilityOf, type UpstreamLink } from './upstream-link.js';

/** How many upstream URIs one mount watches at most, unless `maxWatchedUris` says otherwise. */
export const DEFAULT_MAX_WATCHED_URIS = 1000;

interface Watch {
  /** Local subscribers holding it. */
  holders: number;
  /** The modern upstream's listen stream carrying it, on the current connection. */
  stream: AbortController | undefined;
  /** The legacy upstream's session holds it (so leaving it sends resources/unsubscribe). */
  subscribed: McpClient | undefined;
}

export class UpstreamSubscriptions {
  readonly #link: UpstreamLink;
  readonly #max: number;
  readonly #watches = new Map<string, Watch>();

  constructor(link: UpstreamLink, max = DEFAULT_MAX_WATCHED_URIS) {
    this.#link = link;
    this.#max = max;
  }

  /** Upstream URIs watched now (each one upstream subscription while the link is up). */
  get size(): number {
    return this.#watches.size;
  }

  /** One local subscriber of upstream `uri`; the returned release ends its share (once). */
  acquire(uri: string): () => void {
    let watch = this.#watches.get(uri);
    if (!watch) {
      if (this.#watches.size >= this.#max) {
        throw new ProtocolError(
          ErrorCode.LimitExceeded,
          `${this.#link.name} already watches ${this.#max} resource URIs for its subscribers (maxWatchedUris); unsubscribe from one first`,
          { limit: 'maxWatchedUris', max: this.#max },
        );
      }
      watch = { holders: 0, stream: undefined, subscribed: undefined };
      this.#watches.set(uri, watch);
      if (this.#link.down() === undefined) this.#subscribe(uri, watch);
    }
    const held = watch;
    held.holders++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--held.holders > 0) return;
      this.#watches.delete(uri);
      this.#unsubscribe(uri, held);
    };
  }

  /** The link is up (again): each URI still watched is subscribed on the new connection. */
  connected(): void {
    for (const [uri, watch] of this.#watches) {
      watch.stream?.abort();
      this.#subscribe(uri, watch);
    }
  }

  /** The link went down: its streams and session end with it. */
  disconnected(): void {
    for (const watch of this.#watches.values()) {
      watch.stream?.abort();
      watch.stream = undefined;
      watch.subscribed = undefined;
    }
  }

  /** Unmounting: every upstream subscription ends. */
  close(): void {
    this.disconnected();
    this.#watches.clear();
  }

  /** Subscribes upstream to `uri` on the current connection, in its era. */
  #subscribe(uri: string, watch: Watch): void {
    const client = this.#link.client();
    watch.stream = undefined;
    watch.subscribed = undefined;
    if (!client || capabilityOf(client, 'resources')?.subscribe !== true) return;
    const failed = (error: unknown) =>
      this.#link.logError(
        `weft gateway: could not subscribe to ${uri} on ${this.#link.target}: ${(error as Error).message}`,
      );
    if (client.era === 'legacy') {
      watch.subscribed = client;
      client.subscribeResource(uri).catch(failed);
      return;
    }
    const stream = new AbortController();
    watch.stream = stream;
    client.listen({ resourceSubscriptions: [uri] }, { signal: stream.signal }).catch((error: unknown) => {
      if (!stream.signal.aborted) failed(error);
    });
  }

  #unsubscribe(uri: string, watch: Watch): void {
    watch.stream?.abort();
    watch.stream = undefined;
    const client = watch.subscribed;
    watch.subscribed = undefined;
    if (client && client === this.#link.client() && this.#link.down() === undefined) {
      client.request('resources/unsubscribe', { uri }).catch(() => {});
    }
  }
}
