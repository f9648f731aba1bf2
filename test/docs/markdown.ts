/**
 * What the docs tests read from markdown: links (outside code), heading anchors as GitHub makes
 * them, and fenced code blocks with the `<!-- example: path -->` marker that ties a block to a file.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../../../', import.meta.url));

/** README.md and every page under docs/: the files whose links and examples are checked. */
export function docFiles(): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs.sort()];
}

export const read = (file: string) => readFileSync(join(root, file), 'utf8');

/** The text with fenced code blocks blanked out (line count kept), so their contents are not read as links. */
function prose(text: string): string[] {
  let fence = false;
  return text.split('\n').map((line) => {
    if (line.startsWith('```')) {
      fence = !fence;
      return '';
    }
    return fence ? '' : line.replace(/`[^`]*`/g, '');
  });
}

export interface Link {
  line: number;
  target: string;
}

/** Inline links and images, `[text](target)`, outside code. */
export function links(text: string): Link[] {
  const found: Link[] = [];
  prose(text).forEach((line, index) => {
    for (const match of line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      found.push({ line: index + 1, target: match[1]! });
    }
  });
  return found;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  let fence = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) fence = !fence;
    const heading = fence ? null : /^#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    const slug = heading[1]!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return result;
}

export interface EmbeddedExample {
  file: string;
  line: number;
  code: string;
}

/** Every `<!-- example: path -->` marker and the fenced block right after it. */
export function embeddedExamples(text: string): EmbeddedExample[] {
  const lines = text.split('\n');
  const found: EmbeddedExample[] = [];
  lines.forEach((line, index) => {
    const marker = /^<!-- example: (\S+) -->$/.exec(line.trim());
    if (!marker) return;
    const open = lines.findIndex((candidate, at) => at > index && candidate.startsWith('```'));
    const close = lines.findIndex((candidate, at) => at > open && candidate.startsWith('```'));
    if (open !== index + 1 || close < 0) {
      throw new Error(`line ${index + 1}: an example marker must be followed at once by a fenced code block`);
    }
    found.push({ file: marker[1]!, line: index + 1, code: `${lines.slice(open + 1, close).join('\n')}\n` });
  });
  return found;
}
