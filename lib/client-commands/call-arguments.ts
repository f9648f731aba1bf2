/**
 * `key=value` words as a tool's arguments, typed by the tool's own input schema: `n=30` is the
 * number 30 for an `integer` property and the text "30" for a `string` one; `flag=true` a
 * boolean; an `object` or `array` property takes JSON (`items='[1,2]'`). A property the schema
 * does not describe is read as JSON when it parses, as text otherwise. `key:=json` forces JSON.
 *
 * `key=@path` takes the value from a file (`@-`: stdin), so data too large for a command line (an
 * image in base64 hits "Argument list too long") need not be on it. For a `string` property the
 * file's bytes go as base64 when the property says `contentEncoding: "base64"` or the file is not
 * UTF-8 text (an image, a PDF), and as text otherwise; for any other property the file's text is
 * typed like a value written in place. `key:=@path` reads JSON from the file. `key=\@x` is the
 * literal text "@x".
 */

/** Reads a file named after `@` (`-` is stdin): the caller decides where bytes come from. */
export type ReadArgumentFile = (path: string) => Buffer;

interface PropertySchema {
  type?: unknown;
  contentEncoding?: unknown;
}

export function callArguments(
  words: readonly string[],
  inputSchema: Record<string, unknown>,
  readFile: ReadArgumentFile = () => {
    throw new Error('reading files is not available here');
  },
): Record<string, unknown> {
  const properties = (inputSchema.properties ?? {}) as Record<string, PropertySchema>;
  const args: Record<string, unknown> = {};
  for (const word of words) {
    const json = /^([^=:]+):=(.*)$/s.exec(word);
    const plain = json ? null : /^([^=]+)=(.*)$/s.exec(word);
    if (!json && !plain) throw new Error(`argument "${word}" is not key=value (or key:=json)`);
    const [, key, written] = (json ?? plain)! as unknown as [string, string, string];
    const property = properties[key] ?? {};
    if (written.startsWith('@')) {
      const bytes = fileBytes(key, written.slice(1), readFile);
      args[key] = json ? parseJson(key, bytes.toString('utf8')) : fromFile(key, bytes, property);
      continue;
    }
    const text = written.startsWith('\\@') ? written.slice(1) : written;
    args[key] = json ? parseJson(key, text) : typed(key, text, property.type);
  }
  return args;
}

/** Whether any word reads stdin (`key=@-`), so the command reads it once, before typing. */
export function readsStdin(words: readonly string[]): boolean {
  return words.some((word) => /^[^=]+=@-$/s.test(word));
}

function fileBytes(key: string, path: string, readFile: ReadArgumentFile): Buffer {
  if (path === '') throw new Error(`${key}=@ needs a file name (or - for stdin)`);
  try {
    return readFile(path);
  } catch (error) {
    const code = (error as { code?: string }).code;
    const why = code === 'ENOENT' ? 'there is no such file' : (error as Error).message;
    throw new Error(
      `${key}=@${path}: cannot read it (${why}); write ${key}=\\@... for text that starts with @`,
    );
  }
}

function fromFile(key: string, bytes: Buffer, property: PropertySchema): unknown {
  const types = Array.isArray(property.type) ? property.type : [property.type];
  const text = utf8Text(bytes);
  if (types.includes('string')) {
    return property.contentEncoding === 'base64' || text === undefined ? bytes.toString('base64') : text;
  }
  if (text === undefined) {
    throw new Error(
      `${key} is not a string in the tool's schema, so its file must be text, and it is not UTF-8`,
    );
  }
  return typed(key, text.replace(/\r?\n$/, ''), property.type);
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/** The bytes as text, or undefined when they are not UTF-8 text (invalid, or holding a NUL byte). */
function utf8Text(bytes: Buffer): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}

function typed(key: string, text: string, type: unknown): unknown {
  const types = Array.isArray(type) ? type : [type];
  if (types.includes('string')) return text;
  if (types.includes('integer') || types.includes('number')) {
    const value = Number(text);
    if (text.trim() === '' || Number.isNaN(value)) throw new Error(`${key} must be a number, got "${text}"`);
    return value;
  }
  if (types.includes('boolean')) {
    if (text !== 'true' && text !== 'false') throw new Error(`${key} must be true or false, got "${text}"`);
    return text === 'true';
  }
  if (types.includes('object') || types.includes('array') || types.includes('null'))
    return parseJson(key, text);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function parseJson(key: string, text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Error(`${key} must be JSON, got ${text.length > 200 ? `${text.slice(0, 200)}…` : text}`);
  }
}
