/**
 * `key=value` words as a tool's arguments, typed by the tool's own input schema: `n=30` is the
 * number 30 for an `integer` property and the text "30" for a `string` one; `flag=true` a
 * boolean; an `object` or `array` property takes JSON (`items='[1,2]'`). A property the schema
 * does not describe is read as JSON when it parses, as text otherwise. `key:=json` forces JSON.
 */

export function callArguments(
  words: readonly string[],
  inputSchema: Record<string, unknown>,
): Record<string, unknown> {
  const properties = (inputSchema.properties ?? {}) as Record<string, { type?: unknown }>;
  const args: Record<string, unknown> = {};
  for (const word of words) {
    const json = /^([^=:]+):=(.*)$/s.exec(word);
    const plain = json ? null : /^([^=]+)=(.*)$/s.exec(word);
    if (!json && !plain) throw new Error(`argument "${word}" is not key=value (or key:=json)`);
    const [, key, text] = (json ?? plain)! as unknown as [string, string, string];
    args[key] = json ? parseJson(key, text) : typed(key, text, properties[key]?.type);
  }
  return args;
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
    throw new Error(`${key} must be JSON, got ${text}`);
  }
}
