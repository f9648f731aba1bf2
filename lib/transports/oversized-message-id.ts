/**
 * Finds the id of a message too large to parse, from its first and last bytes only, so that the
 * error refusing it can name the request it answers (a client matches answers by id: with `id: null`
 * the official client waits for its own timeout).
 *
 * Only the two places a client puts `id` are looked at: first (or right after `"jsonrpc":"2.0"`) and
 * last (the official SDK spreads the request and adds `jsonrpc` and `id` after it). Inside a string
 * every quote is escaped, so a `"id":` in the message's text is never mistaken for the real one, and
 * a key that ends a nested object is followed by two closing braces, which the tail pattern refuses.
 */

/** The bytes kept from each end of an oversized line: enough for the envelope's keys and an id. */
export const ENVELOPE_BYTES = 256;

const ID = String.raw`(-?\d+(?:\.\d+)?|"(?:[^"\\]|\\.){0,200}")`;
const AT_START = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID}\s*[,}]`);
const AT_END = new RegExp(String.raw`[,{]\s*"id"\s*:\s*${ID}\s*\}\s*$`);

/** The request id written at the start or end of the message, or null when neither holds one. */
export function idOfOversizedMessage(head: string, tail: string): string | number | null {
  const found = AT_START.exec(head) ?? AT_END.exec(tail);
  if (!found) return null;
  try {
    const id: unknown = JSON.parse(found[1]!);
    return typeof id === 'string' || typeof id === 'number' ? id : null;
  } catch {
    return null;
  }
}
