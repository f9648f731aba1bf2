/**
 * The payloads of the payload scenario, the same for every server: a text of N bytes, and an image
 * of N bytes (as the base64 a content block carries), and a document's lines of N bytes. Built once per size and thread, so a call
 * costs what moving the bytes costs, not what making them does.
 */
const texts = new Map<number, string>();
const images = new Map<number, string>();
const lines = new Map<number, string>();

export function payloadText(bytes: number): string {
  let text = texts.get(bytes);
  if (text === undefined) {
    text = 'x'.repeat(bytes);
    texts.set(bytes, text);
  }
  return text;
}

/**
 * A text of N bytes as an extracted document is: lines of prose, with quotes and a tab, so JSON
 * must escape a character every few dozen (the plain text above needs none).
 */
export function payloadLines(bytes: number): string {
  let text = lines.get(bytes);
  if (text === undefined) {
    const line = 'Line of an extracted page: "quoted words", a\ttab, figures 0123456789 and prose.\n';
    text = line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes);
    lines.set(bytes, text);
  }
  return text;
}

/** Base64 of N bytes that do not compress (a pattern no run-length trick shortens). */
export function payloadImage(bytes: number): string {
  let data = images.get(bytes);
  if (data === undefined) {
    const raw = Buffer.alloc(bytes);
    for (let index = 0; index < bytes; index++) raw[index] = (index * 2654435761) >>> 24;
    data = raw.toString('base64');
    images.set(bytes, data);
  }
  return data;
}

/** What an argument tool answers: the size it received (decoded, for an image). */
export function argumentSize(data: string, kind: 'text' | 'image'): string {
  return String(kind === 'image' ? Buffer.byteLength(data, 'base64') : data.length);
}
