/**
 * What the client learned from `tools/list`, and for how long it may trust it.
 *
 * A listing is good for its `ttlMs` (absent = 0: stale at once) under its `cacheScope`. From each
 * tool's input schema the client finds the `x-mcp-header` arguments it must mirror into
 * `Mcp-Param-<Name>` headers, with the same rules the server applies when a tool registers
 * (protocol/header-param-schema.ts): a tool with one invalid annotation is dropped from the listing,
 * as the spec tells HTTP clients to do, because no call to it could be checked by the server.
 */
import { findHeaderParams } from '../protocol/header-param-schema.js';
import { encodeHeaderValue, type HeaderParam, PARAM_HEADER_PREFIX } from '../protocol/mcp-param-headers.js';

/** A tool as `tools/list` described it (the fields the client reads; the rest is kept as sent). */
export interface ListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  execution?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface DroppedTool {
  name: string;
  /** What was wrong with its `x-mcp-header` annotations. */
  problem: string;
}

export interface ToolListing {
  tools: ListedTool[];
  /** Tools left out because their annotations are invalid. */
  dropped: DroppedTool[];
  ttlMs: number;
  cacheScope: 'public' | 'private' | undefined;
  /** performance.now() when the listing was received. */
  receivedAt: number;
}

class AnnotationProblem extends Error {}

/** The header parameters of each valid tool, found once per listing. */
export class ToolHeaderIndex {
  readonly #byTool = new Map<string, HeaderParam[]>();

  /** Splits a raw page of tools into the valid ones (indexed here) and the dropped ones. */
  admit(tools: readonly ListedTool[], dropped: DroppedTool[]): ListedTool[] {
    const kept: ListedTool[] = [];
    for (const tool of tools) {
      try {
        const schema =
          typeof tool.inputSchema === 'object' && tool.inputSchema !== null ? tool.inputSchema : {};
        const params = findHeaderParams(schema, (message) => {
          throw new AnnotationProblem(message);
        });
        this.#byTool.set(tool.name, params);
        kept.push(tool);
      } catch (error) {
        if (!(error instanceof AnnotationProblem)) throw error;
        dropped.push({ name: tool.name, problem: error.message });
      }
    }
    return kept;
  }

  paramsOf(name: string): readonly HeaderParam[] | undefined {
    return this.#byTool.get(name);
  }
}

/**
 * A listing assembled from its pages (read by `everyPage`, which hands each page over): the tools
 * admitted or dropped by their header annotations, the shortest `ttlMs` any page gave (none: 0,
 * stale at once), and the cacheScope the pages stated.
 */
export async function assembleListing(
  everyPage: (page: (result: Record<string, unknown>) => void) => Promise<void>,
): Promise<{ listing: ToolListing; headers: ToolHeaderIndex }> {
  const headers = new ToolHeaderIndex();
  const dropped: DroppedTool[] = [];
  const tools: ListedTool[] = [];
  let ttlMs: number | undefined;
  let cacheScope: ToolListing['cacheScope'];
  await everyPage((page) => {
    tools.push(...headers.admit((page.tools as ListedTool[]) ?? [], dropped));
    const ttl = page.ttlMs;
    if (typeof ttl === 'number' && ttl >= 0) ttlMs = ttlMs === undefined ? ttl : Math.min(ttlMs, ttl);
    if (page.cacheScope === 'public' || page.cacheScope === 'private') cacheScope = page.cacheScope;
  });
  const listing = { tools, dropped, ttlMs: ttlMs ?? 0, cacheScope, receivedAt: performance.now() };
  return { listing, headers };
}

export function isExpired(listing: ToolListing | undefined, now = performance.now()): boolean {
  return listing === undefined || now - listing.receivedAt >= listing.ttlMs;
}

/**
 * The `Mcp-Param-*` headers for a call's arguments. An argument that is absent or null gets no
 * header; integers are written in decimal, booleans as true/false, strings as they are unless they
 * need the Base64 form (non-ASCII, surrounding whitespace, or a value that looks like the sentinel).
 * A value whose type is not the declared one is not mirrored: the server then refuses the call for
 * its arguments, which says more than a header mismatch would.
 */
export function paramHeaders(
  params: readonly HeaderParam[],
  args: Record<string, unknown> | undefined,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const param of params) {
    let value: unknown = args;
    for (const key of param.path) {
      value =
        typeof value === 'object' && value !== null && !Array.isArray(value)
          ? (value as Record<string, unknown>)[key]
          : undefined;
    }
    const text = headerText(value, param.type);
    if (text !== undefined) headers[`${PARAM_HEADER_PREFIX}${param.name}`] = text;
  }
  return headers;
}

function headerText(value: unknown, type: HeaderParam['type']): string | undefined {
  if (value === undefined || value === null) return undefined;
  switch (type) {
    case 'string':
      return typeof value === 'string' ? encodeHeaderValue(value) : undefined;
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) return undefined;
      // Decimal digits, never exponent notation (String(1e21) would be "1e+21").
      return Number.isSafeInteger(value) ? String(value) : BigInt(value).toString();
    case 'boolean':
      return typeof value === 'boolean' ? String(value) : undefined;
  }
}
