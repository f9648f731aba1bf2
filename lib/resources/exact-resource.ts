/**
 * The exact (sealed) registrations of resources and resource templates that belong to another
 * server: what `server.mount` publishes for an upstream's. Like an exact tool
 * (tools/exact-tool.ts), each is listed with the upstream's descriptor (under its published URI)
 * and its reads skip weft's own shaping: the upstream's contents, errors included, pass through.
 * A subscription to one is forwarded upstream (`watch`). The registry makes them only when handed
 * `EXACT_SEAL`, which no public entry exports.
 */
import type { ReadContext, ResourceContents } from './resource-definition.js';

interface ExactSource {
  /**
   * `resources/read` forwarded (the published URI); resolves with the upstream's contents. The
   * upstream's questions go to the client through `ctx` (elicit, sample, roots).
   */
  read(uri: string, ctx: ReadContext): Promise<ResourceContents[]>;
  /**
   * A client subscribed to `uri` (published), on either era's path: subscribe upstream too. The
   * returned release is called once when that client's subscription ends. Throws when the mount's
   * cap on watched URIs is reached.
   */
  watch(uri: string): () => void;
}

export interface ExactResourceSpec extends ExactSource {
  readonly descriptor: { readonly uri: string; readonly name?: unknown } & Record<string, unknown>;
}

export interface ExactTemplateSpec extends ExactSource {
  readonly descriptor: { readonly uriTemplate: string; readonly name?: unknown } & Record<string, unknown>;
  /** `completion/complete` for this template forwarded; resolves with the upstream's result. */
  complete(params: Record<string, unknown>, signal: AbortSignal): Promise<Record<string, unknown>>;
}
