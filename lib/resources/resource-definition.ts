/**
 * What a user writes to publish a resource or a resource template, and how whatever a reader
 * returns becomes the `contents` of `resources/read`.
 *
 * A reader may return a string (text), bytes (sent base64 as `blob`), one contents object, an array
 * of them, or `{ contents }`. The URI and the declared mimeType fill in what the reader left out, so
 * the simple case stays one line.
 */
import type { ClientAsking } from '../tools/tool-context.js';

export interface ResourceContents {
  uri: string;
  mimeType?: string;
  text?: string;
  /** Base64 bytes. */
  blob?: string;
  _meta?: Record<string, unknown>;
}

export type ReadReturn =
  | string
  | Uint8Array
  | Partial<ResourceContents>
  | Partial<ResourceContents>[]
  | { contents: Partial<ResourceContents>[] };

export interface ReadContext extends ClientAsking {
  /** Aborts when the client cancels the read or goes away. */
  signal: AbortSignal;
}

interface ResourceCommon {
  /** A short identifier shown to users (not necessarily unique). */
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: { audience?: ('user' | 'assistant')[]; priority?: number; lastModified?: string };
  icons?: { src: string; mimeType?: string; sizes?: string[] }[];
  _meta?: Record<string, unknown>;
  /**
   * Labels for the server's own use (enable or disable by tag, `ctx.*().list({ tags })`); never
   * published: put them in `_meta` too if clients should see them.
   */
  tags?: readonly string[];
  /**
   * OAuth scopes a caller must hold, all of them, to see and read this (checked only for callers
   * with a principal); never published. See docs/authorization.md.
   */
  scopes?: readonly string[];
}

export interface ResourceDefinition extends ResourceCommon {
  /** The resource's unique URI, e.g. `file:///notes.txt` or `app://config`. */
  uri: string;
  /** Size in bytes, when known ahead of reading. */
  size?: number;
  read(uri: string, ctx: ReadContext): ReadReturn | Promise<ReadReturn>;
}

/** Offers completions for one variable or argument, given what the user typed so far. */
export type Completer = (
  value: string,
  context: { arguments: Record<string, string> },
) => string[] | Promise<string[]>;

export interface ResourceTemplateDefinition extends ResourceCommon {
  /** An RFC 6570 template with simple variables, e.g. `test://template/{id}/data`. */
  uriTemplate: string;
  read(uri: string, variables: Record<string, string>, ctx: ReadContext): ReadReturn | Promise<ReadReturn>;
  /** Completions for the template's variables (`completion/complete` with `ref/resource`). */
  complete?: Record<string, Completer>;
}

/** Turns a reader's return value into the `contents` array of a `resources/read` result. */
export function toContents(uri: string, mimeType: string | undefined, value: ReadReturn): ResourceContents[] {
  const fill = (part: Partial<ResourceContents>): ResourceContents => {
    const contents: ResourceContents = { ...part, uri: part.uri ?? uri };
    if (contents.mimeType === undefined && mimeType !== undefined) contents.mimeType = mimeType;
    if (contents.text === undefined && contents.blob === undefined) {
      throw new TypeError(`The reader of ${uri} returned contents with neither text nor blob`);
    }
    return contents;
  };
  if (typeof value === 'string') return [fill({ text: value })];
  if (value instanceof Uint8Array) return [fill({ blob: Buffer.from(value).toString('base64') })];
  if (Array.isArray(value)) return value.map(fill);
  if (
    typeof value === 'object' &&
    value !== null &&
    Array.isArray((value as { contents?: unknown }).contents)
  ) {
    return (value as { contents: Partial<ResourceContents>[] }).contents.map(fill);
  }
  if (typeof value === 'object' && value !== null) return [fill(value as Partial<ResourceContents>)];
  throw new TypeError(
    `The reader of ${uri} returned ${typeof value}; return a string, bytes, or { text | blob } contents`,
  );
}
