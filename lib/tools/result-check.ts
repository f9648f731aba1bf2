/**
 * The cheap check that a handler's CallToolResult has the shape the spec gives it, run on every
 * successful call before the result is sent.
 *
 * A client validates the whole response against the spec's schema: one content block of an unknown
 * type, or a text block without its text, and the official client rejects the answer outright, so
 * the model learns nothing. Caught here, the call ends as an `isError` result naming the first
 * problem instead. A hand-written walk over the blocks (no schema compiler per call): it costs a few
 * property reads per block, plus a base64 check of binary data (the client checks it too, and
 * rejects the whole response over one bad character), a scan of its characters rather than a decode.
 */

import { isAtobBase64, isPlainBase64 } from '../protocol/plain-text.js';
import { movedPiece } from './moved-strings.js';
import { noteProvedPlain } from './result-encoding.js';

type Fields = Record<string, unknown>;

/** Required string fields of each content block type. */
const REQUIRED_STRINGS = new Map<unknown, readonly string[]>([
  ['text', ['text']],
  ['image', ['data', 'mimeType']],
  ['audio', ['data', 'mimeType']],
  ['resource_link', ['uri', 'name']],
  ['resource', []],
]);

/** Optional fields that must be strings when present. */
const OPTIONAL_STRINGS = new Map<unknown, readonly string[]>([
  ['resource_link', ['title', 'description', 'mimeType']],
]);

const KNOWN_TYPES = [...REQUIRED_STRINGS.keys()].join(', ');

const isObject = (value: unknown): value is Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** True when a handler's value means to be a CallToolResult (it has a `content` member). */
export function looksLikeCallToolResult(value: unknown): value is Fields {
  return isObject(value) && 'content' in value;
}

/** The first way `value` is not a valid CallToolResult, or undefined when it is one. */
export function callToolResultProblem(value: Fields): string | undefined {
  const { content } = value;
  if (!Array.isArray(content)) return `"content" must be an array of content blocks, got ${kindOf(content)}`;
  for (let index = 0; index < content.length; index++) {
    const problem = blockProblem(content[index]);
    if (problem) return `content[${index}] ${problem}`;
  }
  if (value.structuredContent !== undefined && !isObject(value.structuredContent)) {
    return `"structuredContent" must be a JSON object when present, got ${kindOf(value.structuredContent)}`;
  }
  if (value.isError !== undefined && typeof value.isError !== 'boolean') {
    return `"isError" must be true or false when present, got ${kindOf(value.isError)}`;
  }
  if (value._meta !== undefined && !isObject(value._meta)) {
    return `"_meta" must be a JSON object when present, got ${kindOf(value._meta)}`;
  }
  return undefined;
}

function blockProblem(block: unknown): string | undefined {
  if (!isObject(block)) return `must be a content block object, got ${kindOf(block)}`;
  const { type } = block;
  const required = REQUIRED_STRINGS.get(type);
  if (required === undefined) {
    return `has type ${typeof type === 'string' ? JSON.stringify(type) : kindOf(type)}; a content block's type is one of ${KNOWN_TYPES}`;
  }
  for (const field of required) {
    if (!isString(block, field)) {
      return `(${type}) needs "${field}" as a string, got ${kindOf(block[field])}`;
    }
  }
  if ((type === 'image' || type === 'audio') && !isCheckedBase64(block, 'data')) {
    return `(${type}) "data" must be base64 (what atob accepts)`;
  }
  for (const field of OPTIONAL_STRINGS.get(type) ?? []) {
    if (block[field] !== undefined && typeof block[field] !== 'string') {
      return `(${type}) "${field}" must be a string when present, got ${kindOf(block[field])}`;
    }
  }
  if (type === 'resource') {
    const problem = embeddedResourceProblem(block.resource);
    if (problem) return `(resource) ${problem}`;
  }
  if (type === 'resource_link') {
    const problem = linkExtrasProblem(block);
    if (problem) return `(resource_link) ${problem}`;
  }
  if (block._meta !== undefined && !isObject(block._meta)) {
    return `(${type}) "_meta" must be an object when present, got ${kindOf(block._meta)}`;
  }
  if (block.annotations !== undefined) {
    const problem = annotationsProblem(block.annotations);
    if (problem) return `(${type}) ${problem}`;
  }
  return undefined;
}

/** `annotations`: who it is for, how much it matters (0 to 1), when it last changed. */
function annotationsProblem(annotations: unknown): string | undefined {
  if (!isObject(annotations))
    return `"annotations" must be an object when present, got ${kindOf(annotations)}`;
  const { audience, priority, lastModified } = annotations;
  if (
    audience !== undefined &&
    !(Array.isArray(audience) && audience.every((role) => role === 'user' || role === 'assistant'))
  ) {
    return '"annotations.audience" must be an array of "user" and "assistant"';
  }
  if (priority !== undefined && !(typeof priority === 'number' && priority >= 0 && priority <= 1)) {
    return `"annotations.priority" must be a number from 0 to 1, got ${JSON.stringify(priority) ?? kindOf(priority)}`;
  }
  if (lastModified !== undefined && typeof lastModified !== 'string') {
    return `"annotations.lastModified" must be an ISO 8601 timestamp string, got ${kindOf(lastModified)}`;
  }
  return undefined;
}

/**
 * A string field, read without reading a string a pool thread moved over as bytes (moved-strings.ts):
 * that one is a string, and making it one here would undo the move.
 */
function isString(holder: Fields, field: string): boolean {
  return movedPiece(holder, field) !== undefined || typeof holder[field] === 'string';
}

/**
 * Base64 as clients check it (what atob accepts). A canonical text is proved by a scan, and noted
 * for the encoder with the object holding it, so that it is not scanned again when the result is
 * encoded in the same turn (result-encoding.ts); a pool thread's scan of a string it moved stands.
 */
function isCheckedBase64(holder: Fields, field: string): boolean {
  const moved = movedPiece(holder, field);
  if (moved?.base64) return true;
  const text = holder[field] as string;
  if (isPlainBase64(text)) {
    noteProvedPlain(holder, text);
    return true;
  }
  return isAtobBase64(text);
}

/** The optional members of a resource link that are not strings: its size and its icons. */
function linkExtrasProblem(block: Fields): string | undefined {
  if (block.size !== undefined && typeof block.size !== 'number') {
    return `"size" must be a number when present, got ${kindOf(block.size)}`;
  }
  const { icons } = block;
  if (
    icons !== undefined &&
    !(Array.isArray(icons) && icons.every((icon) => isObject(icon) && typeof icon.src === 'string'))
  ) {
    return '"icons" must be an array of objects with a "src" string';
  }
  return undefined;
}

function embeddedResourceProblem(resource: unknown): string | undefined {
  if (!isObject(resource)) return `needs "resource" as an object, got ${kindOf(resource)}`;
  if (typeof resource.uri !== 'string')
    return `needs "resource.uri" as a string, got ${kindOf(resource.uri)}`;
  // Text contents, or else blob contents: the spec's two kinds of embedded resource.
  if (!isString(resource, 'text')) {
    if (!isString(resource, 'blob')) return 'needs "resource.text" or "resource.blob" as a string';
    if (!isCheckedBase64(resource, 'blob')) return '"resource.blob" must be base64 (what atob accepts)';
  }
  if (resource.mimeType !== undefined && typeof resource.mimeType !== 'string') {
    return `"resource.mimeType" must be a string when present, got ${kindOf(resource.mimeType)}`;
  }
  if (resource._meta !== undefined && !isObject(resource._meta)) {
    return `"resource._meta" must be an object when present, got ${kindOf(resource._meta)}`;
  }
  return undefined;
}

/** A short name for what a value is, for messages ("a number", "null", "an array", "missing"). */
function kindOf(value: unknown): string {
  if (value === undefined) return 'nothing (missing)';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
