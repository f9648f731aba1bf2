/**
 * Where a tool result keeps its large strings, for the code that treats them apart: the encoder
 * (result-encoding.ts), which writes them without a second copy, and the pool threads
 * (moved-strings.ts), which move them to the main thread as bytes.
 *
 * A heavy result is heavy in one place: a text block's `text`, an image's or an audio clip's
 * `data`, an embedded resource's `text` or `blob`. A string there is long from
 * `LONG_STRING_MIN_CHARS`: below it, treating it apart costs more than it saves.
 */

/** Strings shorter than this go with the rest of the result. */
export const LONG_STRING_MIN_CHARS = 64 * 1024;

type Fields = Record<string, unknown>;

/** The object that holds a content block's main string, and that string's field. */
export interface StringSlot {
  holder: Fields;
  field: string;
}

/** Where `block` keeps its main string (whatever that field now holds), or undefined. */
export function stringSlotOf(block: unknown): StringSlot | undefined {
  if (typeof block !== 'object' || block === null) return undefined;
  const fields = block as Fields;
  if (fields.type === 'text') return { holder: fields, field: 'text' };
  if (fields.type === 'image' || fields.type === 'audio') return { holder: fields, field: 'data' };
  if (fields.type === 'resource' && typeof fields.resource === 'object' && fields.resource !== null) {
    const resource = fields.resource as Fields;
    return { holder: resource, field: typeof resource.text === 'string' ? 'text' : 'blob' };
  }
  return undefined;
}

/** The slot's string when it is a long one, else undefined. */
export function longStringIn(slot: StringSlot): string | undefined {
  const value = slot.holder[slot.field];
  return typeof value === 'string' && value.length >= LONG_STRING_MIN_CHARS ? value : undefined;
}

/**
 * A copy of `block` whose slot holds `replacement`: the block, and its embedded resource when the
 * slot is there, are copied (shallow); the handler's own objects are never changed. The slot's own
 * field is never read, so a field that decodes its string when read (moved-strings.ts) is not.
 */
export function withSlotReplaced(block: Fields, slot: StringSlot, replacement: string): Fields {
  const holder: Fields = {};
  for (const key of Object.keys(slot.holder))
    holder[key] = key === slot.field ? replacement : slot.holder[key];
  return slot.holder === block ? holder : { ...block, resource: holder };
}
