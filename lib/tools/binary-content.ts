/**
 * Bytes as tool results: the helpers that make content blocks of them, and the rule for a handler
 * that returns bare bytes (a Buffer, a Uint8Array, an ArrayBuffer: what sharp, pdf and zip
 * libraries hand back).
 *
 * MCP carries bytes as base64 text inside a content block that says what they are, so bare bytes
 * need a type. The rule: bytes that open with the signature of an image or audio format every MCP
 * client can show (PNG, JPEG, GIF, WebP; WAV, MP3, Ogg, FLAC) become one image or audio block of
 * that type; any other bytes are refused with a tool error that names the helpers to use, never
 * sent as a JSON dump of their numbers. The rule runs where the handler ran (a pool thread or
 * process encodes its own bytes), so only the base64 text crosses to the main thread.
 */
import type { AudioContent, CallToolResult, EmbeddedResourceContent, ImageContent } from './content.js';

/** What the helpers take: Node's Buffer is a Uint8Array, so it is one of these too. */
export type Bytes = ArrayBuffer | ArrayBufferView;

/** An image block: `bytes` (or base64 text already made) with its MIME type, e.g. 'image/png'. */
export function imageContent(bytes: Bytes | string, mimeType: string): ImageContent {
  return { type: 'image', data: base64Of(bytes, 'imageContent'), mimeType: mimeOf(mimeType, 'imageContent') };
}

/** An audio block: `bytes` (or base64 text already made) with its MIME type, e.g. 'audio/wav'. */
export function audioContent(bytes: Bytes | string, mimeType: string): AudioContent {
  return { type: 'audio', data: base64Of(bytes, 'audioContent'), mimeType: mimeOf(mimeType, 'audioContent') };
}

/**
 * A file of any type embedded in the result (a PDF, a zip), as a `resource` block with a `blob`.
 * `uri` names it for the client (`file:///report.pdf`, or a scheme of the server's own).
 */
export function blobResource(
  bytes: Bytes | string,
  resource: { uri: string; mimeType?: string },
): EmbeddedResourceContent {
  if (typeof resource?.uri !== 'string' || resource.uri === '') {
    throw new TypeError(
      'blobResource(bytes, { uri, mimeType }) needs a uri naming the file, e.g. file:///report.pdf',
    );
  }
  const blob = base64Of(bytes, 'blobResource');
  return {
    type: 'resource',
    resource:
      resource.mimeType === undefined
        ? { uri: resource.uri, blob }
        : { uri: resource.uri, mimeType: mimeOf(resource.mimeType, 'blobResource'), blob },
  };
}

/** True for what the bytes rule applies to: an ArrayBuffer or any view of one (Buffer included). */
export function isBytes(value: unknown): value is Bytes {
  return value instanceof ArrayBuffer || ArrayBuffer.isView(value);
}

/** A handler's bare bytes as a CallToolResult (the rule above), or the error to answer instead. */
export function bytesResult(
  toolName: string,
  bytes: Bytes,
): { result: CallToolResult } | { refusal: string } {
  const view = viewOf(bytes);
  const format = formatOf(view);
  if (format === undefined) {
    return {
      refusal:
        `Tool "${toolName}" returned ${view.byteLength} bytes that are not an image or audio format weft ` +
        'recognises (PNG, JPEG, GIF, WebP, WAV, MP3, Ogg, FLAC); return imageContent(bytes, mimeType), ' +
        "audioContent(bytes, mimeType) or blobResource(bytes, { uri, mimeType }) from 'weft-mcp/tool' " +
        'inside { content: [...] }, or a string',
    };
  }
  const data = Buffer.from(view.buffer, view.byteOffset, view.byteLength).toString('base64');
  return { result: { content: [{ type: format.kind, data, mimeType: format.mimeType }] } };
}

interface Format {
  kind: 'image' | 'audio';
  mimeType: string;
}

const ascii = (view: Uint8Array, at: number, text: string) => {
  for (let i = 0; i < text.length; i++) if (view[at + i] !== text.charCodeAt(i)) return false;
  return true;
};

/** The format named by the bytes' first bytes (their "magic number"), when it is one clients show. */
function formatOf(view: Uint8Array): Format | undefined {
  if (view[0] === 0x89 && ascii(view, 1, 'PNG\r\n\x1a\n')) return { kind: 'image', mimeType: 'image/png' };
  if (view[0] === 0xff && view[1] === 0xd8 && view[2] === 0xff)
    return { kind: 'image', mimeType: 'image/jpeg' };
  if (ascii(view, 0, 'GIF87a') || ascii(view, 0, 'GIF89a')) return { kind: 'image', mimeType: 'image/gif' };
  if (ascii(view, 0, 'RIFF') && ascii(view, 8, 'WEBP')) return { kind: 'image', mimeType: 'image/webp' };
  if (ascii(view, 0, 'RIFF') && ascii(view, 8, 'WAVE')) return { kind: 'audio', mimeType: 'audio/wav' };
  if (
    ascii(view, 0, 'ID3') ||
    (view[0] === 0xff && view[1] !== undefined && (view[1] & 0xe0) === 0xe0 && (view[1] & 0x06) !== 0)
  ) {
    return { kind: 'audio', mimeType: 'audio/mpeg' };
  }
  if (ascii(view, 0, 'OggS')) return { kind: 'audio', mimeType: 'audio/ogg' };
  if (ascii(view, 0, 'fLaC')) return { kind: 'audio', mimeType: 'audio/flac' };
  return undefined;
}

function viewOf(bytes: Bytes): Uint8Array {
  return bytes instanceof ArrayBuffer
    ? new Uint8Array(bytes)
    : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Base64 of the bytes, read in place (no copy of the input); a string is taken as base64 already. */
function base64Of(bytes: Bytes | string, helper: string): string {
  if (typeof bytes === 'string') return bytes;
  if (!isBytes(bytes)) {
    throw new TypeError(`${helper} takes a Buffer, a Uint8Array, an ArrayBuffer or base64 text`);
  }
  const view = viewOf(bytes);
  return Buffer.from(view.buffer, view.byteOffset, view.byteLength).toString('base64');
}

function mimeOf(mimeType: unknown, helper: string): string {
  if (typeof mimeType !== 'string' || !mimeType.includes('/')) {
    throw new TypeError(`${helper} needs a MIME type such as 'image/png', got ${JSON.stringify(mimeType)}`);
  }
  return mimeType;
}
