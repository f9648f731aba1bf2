/**
 * URI templates for `resources/templates/list` (RFC 6570), matched against concrete URIs in
 * `resources/read`.
 *
 * weft supports the simple-string form `{name}` (level 1), which is what resource templates use in
 * practice: a variable matches one or more characters up to the next literal, never across a `/`.
 * Anything richer (`{+path}`, `{?query}`) is refused at registration rather than matched wrongly.
 *
 * Matching is a scan of our own, not a regular expression: a backtracking regex of the template
 * (`([^/]+?)\.([^/]+?)$` for `app://{owner}.{repo}`) takes time that grows with the square of the
 * URI's length, or its cube with three variables, and a URI is whatever a client sends. Here one
 * pass from the right finds, for every variable and position, whether the rest of the template can
 * match from there; one pass from the left then takes each variable as short as it can be, which is
 * the answer the lazy regex gave. Time and memory are O(URI length x variables + template length).
 */

export class UriTemplate {
  readonly variables: readonly string[];
  /** The literal text around the variables: `literals[k]` follows variable k (literals[0] leads). */
  readonly #literals: readonly string[];

  constructor(readonly template: string) {
    const variables: string[] = [];
    const literals: string[] = [];
    let rest = template;
    for (;;) {
      const open = rest.indexOf('{');
      if (open < 0) break;
      const close = rest.indexOf('}', open);
      if (close < 0) throw new TypeError(`URI template ${template}: "{" without a closing "}"`);
      const name = rest.slice(open + 1, close);
      if (!/^[A-Za-z0-9_]+$/.test(name)) {
        throw new TypeError(
          `URI template ${template}: variable {${name}} is not supported; use simple variables like {id}`,
        );
      }
      if (variables.includes(name)) throw new TypeError(`URI template ${template}: {${name}} appears twice`);
      if (rest.slice(0, open).includes('}')) {
        throw new TypeError(`URI template ${template}: "}" without an opening "{"`);
      }
      variables.push(name);
      literals.push(rest.slice(0, open));
      rest = rest.slice(close + 1);
    }
    if (rest.includes('}')) throw new TypeError(`URI template ${template}: "}" without an opening "{"`);
    literals.push(rest);
    this.#literals = literals;
    this.variables = variables;
  }

  /** The variables of `uri` when it matches this template (percent-decoded), else undefined. */
  match(uri: string): Record<string, string> | undefined {
    const captures = this.#capture(uri);
    if (captures === undefined) return undefined;
    const values: Record<string, string> = {};
    this.variables.forEach((name, index) => {
      const raw = captures[index]!;
      try {
        values[name] = decodeURIComponent(raw);
      } catch {
        values[name] = raw;
      }
    });
    return values;
  }

  expand(values: Record<string, string>): string {
    return this.template.replace(/\{([A-Za-z0-9_]+)\}/g, (_, name: string) =>
      encodeURIComponent(values[name] ?? ''),
    );
  }

  /** The raw text each variable matched, each as short as the rest of the template allows. */
  #capture(uri: string): string[] | undefined {
    const literals = this.#literals;
    const count = this.variables.length;
    const length = uri.length;
    const head = literals[0]!;
    const tail = literals[count]!;
    if (count === 0) return uri === head ? [] : undefined;
    if (!uri.startsWith(head) || !uri.endsWith(tail) || length < head.length + tail.length + count) {
      return undefined;
    }
    // endsAt[k][j] = 1 when variable k+1 may end at j: literals[k+1], and everything after it,
    // match uri[j..] exactly. Filled from the last variable back to the first.
    const endsAt: Uint8Array[] = new Array(count);
    let last = new Uint8Array(length + 1);
    last[length - tail.length] = 1;
    endsAt[count - 1] = last;
    for (let k = count - 1; k >= 1; k--) {
      // startsAt[i] = 1 when variable k+1 (and the rest) can match from i: a run of non-"/"
      // characters ending where endsAt allows.
      const startsAt = runsEndingAt(uri, last);
      const literal = literals[k]!;
      const at = occurrences(uri, literal);
      const ends = new Uint8Array(length + 1);
      for (let j = 0; j + literal.length <= length; j++) {
        if (at[j] === 1 && startsAt[j + literal.length] === 1) ends[j] = 1;
      }
      endsAt[k - 1] = ends;
      last = ends;
    }
    if (runsEndingAt(uri, endsAt[0]!)[head.length] !== 1) return undefined;
    const captures: string[] = [];
    let position = head.length;
    for (let k = 0; k < count; k++) {
      const ends = endsAt[k]!;
      let end = position + 1;
      while (ends[end] !== 1) end++;
      captures.push(uri.slice(position, end));
      position = end + literals[k + 1]!.length;
    }
    return captures;
  }
}

const SLASH = 0x2f;

/** For each i, 1 when uri[i..j) is one or more characters without "/" for some j marked in `ends`. */
function runsEndingAt(uri: string, ends: Uint8Array): Uint8Array {
  const starts = new Uint8Array(uri.length + 1);
  for (let i = uri.length - 1; i >= 0; i--) {
    if (uri.charCodeAt(i) !== SLASH && (ends[i + 1] === 1 || starts[i + 1] === 1)) starts[i] = 1;
  }
  return starts;
}

/** 1 at every index where `pattern` occurs in `text` (Knuth-Morris-Pratt: linear in both). */
function occurrences(text: string, pattern: string): Uint8Array {
  const found = new Uint8Array(text.length + 1);
  const size = pattern.length;
  if (size === 0) return found.fill(1);
  const border = new Int32Array(size);
  for (let i = 1, k = 0; i < size; i++) {
    while (k > 0 && pattern.charCodeAt(i) !== pattern.charCodeAt(k)) k = border[k - 1]!;
    if (pattern.charCodeAt(i) === pattern.charCodeAt(k)) k++;
    border[i] = k;
  }
  for (let i = 0, k = 0; i < text.length; i++) {
    while (k > 0 && text.charCodeAt(i) !== pattern.charCodeAt(k)) k = border[k - 1]!;
    if (text.charCodeAt(i) === pattern.charCodeAt(k)) k++;
    if (k === size) {
      found[i - size + 1] = 1;
      k = border[k - 1]!;
    }
  }
  return found;
}
