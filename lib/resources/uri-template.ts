/**
 * URI templates for `resources/templates/list` (RFC 6570), matched against concrete URIs in
 * `resources/read`.
 *
 * weft supports the simple-string form `{name}` (level 1), which is what resource templates use in
 * practice: a variable matches one or more characters up to the next literal, never across a `/`.
 * Anything richer (`{+path}`, `{?query}`) is refused at registration rather than matched wrongly.
 */

export class UriTemplate {
  readonly variables: readonly string[];
  readonly #pattern: RegExp;

  constructor(readonly template: string) {
    const variables: string[] = [];
    let source = '^';
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
      variables.push(name);
      source += `${escapeRegExp(rest.slice(0, open))}([^/]+?)`;
      rest = rest.slice(close + 1);
    }
    if (rest.includes('}')) throw new TypeError(`URI template ${template}: "}" without an opening "{"`);
    this.#pattern = new RegExp(`${source}${escapeRegExp(rest)}$`);
    this.variables = variables;
  }

  /** The variables of `uri` when it matches this template (percent-decoded), else undefined. */
  match(uri: string): Record<string, string> | undefined {
    const found = this.#pattern.exec(uri);
    if (!found) return undefined;
    const values: Record<string, string> = {};
    this.variables.forEach((name, index) => {
      const raw = found[index + 1]!;
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
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
