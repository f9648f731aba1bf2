/**
 * A skill's `SKILL.md` frontmatter: the YAML between the opening and closing `---` lines, as JSON.
 *
 * The Skills extension publishes the frontmatter verbatim, as the JSON value of its YAML, so this
 * reads the subset of YAML that skills are written in: a block mapping of keys to plain, quoted
 * ('...' and "...") or block (`|`, `>`) scalars, nested block mappings (`metadata:`), block
 * sequences (`- item`) and flow sequences of scalars (`[a, b]`), with YAML 1.2 core-schema typing
 * (true/false, null/~, integers, floats). Anything else (anchors, tags, flow mappings, multi-line
 * plain scalars) is refused with the line it is on, rather than read differently from a YAML
 * library: a host that verifies a skill parses the same text again.
 */

export class FrontmatterError extends Error {}

interface Line {
  indent: number;
  text: string;
  no: number;
}

/** The frontmatter of `markdown` (a SKILL.md) as a JSON object. */
export function readFrontmatter(markdown: string): Record<string, unknown> {
  const lines = markdown.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0]?.trimEnd() !== '---') throw new FrontmatterError('SKILL.md must start with a "---" line');
  const close = lines.findIndex((line, index) => index > 0 && line.trimEnd() === '---');
  if (close < 0) throw new FrontmatterError('the frontmatter has no closing "---" line');
  const body: Line[] = [];
  for (let index = 1; index < close; index++) {
    const raw = lines[index]!;
    if (raw.includes('\t') && /^\s*\t/.test(raw))
      throw new FrontmatterError(`line ${index + 1}: tabs cannot indent YAML`);
    const text = raw.trimStart();
    // Blank and comment lines stay in for block scalars, which keep blank lines.
    body.push({ indent: raw.length - text.length, text: text.trimEnd(), no: index + 1 });
  }
  const reader = new BlockReader(body);
  const value = reader.mapping(0);
  reader.expectEnd();
  return value;
}

class BlockReader {
  #at = 0;
  constructor(readonly lines: Line[]) {}

  expectEnd(): void {
    this.#skipBlank();
    const line = this.lines[this.#at];
    if (line !== undefined) throw new FrontmatterError(`line ${line.no}: unexpected indentation`);
  }

  mapping(indent: number): Record<string, unknown> {
    const result: Record<string, unknown> = {};
    for (;;) {
      this.#skipBlank();
      const line = this.lines[this.#at];
      if (line === undefined || line.indent < indent) return result;
      if (line.indent > indent) throw new FrontmatterError(`line ${line.no}: unexpected indentation`);
      if (line.text.startsWith('- ') || line.text === '-') {
        throw new FrontmatterError(`line ${line.no}: a sequence item where a "key: value" was expected`);
      }
      const match = /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s"'#:][^:]*?)\s*:(?:\s+(.*))?$/.exec(line.text);
      if (match === null) throw new FrontmatterError(`line ${line.no}: expected "key: value"`);
      const key = String(scalar(match[1]!, line.no, true));
      if (Object.hasOwn(result, key)) throw new FrontmatterError(`line ${line.no}: duplicate key "${key}"`);
      this.#at++;
      result[key] = this.#value(match[2] ?? '', line, indent);
    }
  }

  #value(rest: string, line: Line, indent: number): unknown {
    const inline = stripComment(rest);
    if (inline === '|' || inline === '>' || /^[|>][-+]?$/.test(inline))
      return this.#blockScalar(inline, indent, line);
    if (inline !== '') return scalar(inline, line.no, false);
    // Nothing after the colon: a nested block, or null.
    this.#skipBlank();
    const next = this.lines[this.#at];
    if (next === undefined) return null;
    if (next.text.startsWith('- ') || next.text === '-') {
      if (next.indent < indent) return null;
      return this.#sequence(next.indent);
    }
    if (next.indent <= indent) return null;
    return this.mapping(next.indent);
  }

  #sequence(indent: number): unknown[] {
    const items: unknown[] = [];
    for (;;) {
      this.#skipBlank();
      const line = this.lines[this.#at];
      if (
        line === undefined ||
        line.indent !== indent ||
        !(line.text.startsWith('- ') || line.text === '-')
      ) {
        return items;
      }
      this.#at++;
      const rest = stripComment(line.text.slice(1).trim());
      if (rest === '')
        throw new FrontmatterError(`line ${line.no}: nested blocks inside a sequence are not supported`);
      if (/^[^'"[]*:\s/.test(rest))
        throw new FrontmatterError(`line ${line.no}: mappings inside a sequence are not supported`);
      items.push(scalar(rest, line.no, false));
    }
  }

  #blockScalar(header: string, indent: number, line: Line): string {
    const folded = header.startsWith('>');
    const chomp = header.slice(1);
    const taken: Line[] = [];
    let blockIndent: number | undefined;
    while (this.#at < this.lines.length) {
      const next = this.lines[this.#at]!;
      if (next.text !== '') {
        if (next.indent <= indent) break;
        blockIndent ??= next.indent;
        if (next.indent < blockIndent)
          throw new FrontmatterError(`line ${next.no}: block scalar is less indented`);
      }
      taken.push(next);
      this.#at++;
    }
    if (blockIndent === undefined) throw new FrontmatterError(`line ${line.no}: empty block scalar`);
    const texts = taken.map((each) =>
      each.text === '' ? '' : ' '.repeat(each.indent - blockIndent!) + each.text,
    );
    while (texts.length > 0 && texts.at(-1) === '') texts.pop();
    let text = folded ? fold(texts) : texts.join('\n');
    if (chomp !== '-') text += '\n';
    return text;
  }

  #skipBlank(): void {
    while (this.#at < this.lines.length) {
      const text = this.lines[this.#at]!.text;
      if (text !== '' && !text.startsWith('#')) return;
      this.#at++;
    }
  }
}

/** Folds lines (`>`): single newlines become spaces, blank lines become newlines. */
function fold(lines: string[]): string {
  let text = '';
  for (const [index, line] of lines.entries()) {
    if (index === 0) text = line;
    else if (line === '') text += '\n';
    else text += text.endsWith('\n') || text === '' ? line : ` ${line}`;
  }
  return text;
}

function stripComment(text: string): string {
  if (text.startsWith('"') || text.startsWith("'")) return text.trim();
  const hash = text.search(/\s#/);
  return (hash < 0 ? text : text.slice(0, hash)).trim();
}

/** One scalar (a key, or a value on the key's line), typed by the YAML 1.2 core schema. */
function scalar(text: string, no: number, isKey: boolean): unknown {
  if (text.startsWith('"')) {
    if (!/^"(?:[^"\\]|\\.)*"$/.test(text)) throw new FrontmatterError(`line ${no}: unterminated "string"`);
    try {
      return JSON.parse(text.replace(/\\'/g, "'")) as string;
    } catch {
      throw new FrontmatterError(`line ${no}: an escape in "${text}" is not supported`);
    }
  }
  if (text.startsWith("'")) {
    if (!/^'(?:[^']|'')*'$/.test(text)) throw new FrontmatterError(`line ${no}: unterminated 'string'`);
    return text.slice(1, -1).replace(/''/g, "'");
  }
  if (isKey) return text;
  if (text.startsWith('[')) {
    if (!text.endsWith(']')) throw new FrontmatterError(`line ${no}: unterminated [sequence]`);
    const inner = text.slice(1, -1).trim();
    if (inner === '') return [];
    return inner.split(',').map((part) => scalar(part.trim(), no, false));
  }
  if (/^[{&*!%@`]/.test(text))
    throw new FrontmatterError(`line ${no}: "${text}" uses YAML this reader does not support`);
  if (/:\s/.test(text)) throw new FrontmatterError(`line ${no}: quote a value that contains ": "`);
  if (/^(?:true|True|TRUE)$/.test(text)) return true;
  if (/^(?:false|False|FALSE)$/.test(text)) return false;
  if (/^(?:null|Null|NULL|~)$/.test(text)) return null;
  if (/^[-+]?[0-9]+$/.test(text)) return Number.parseInt(text, 10);
  if (/^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/.test(text))
    return Number.parseFloat(text);
  return text;
}
