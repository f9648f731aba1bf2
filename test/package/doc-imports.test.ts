/**
 * Every import of the package in the README, docs/ and examples/ names an entry the package has
 * (`weft-mcp`, `weft-mcp/tool`, `weft-mcp/client`, `weft-mcp/testing`) and names it exports; none
 * imports `weft`, which on the npm registry is someone else's package.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { root } from '../docs/markdown.js';
import { declarationOf, exportedNames, manifest } from './public-exports.js';

/** README.md, and every markdown and source file under docs/ and examples/. */
function readerFiles(): string[] {
  const found = [join(root, 'README.md')];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && !entry.name.startsWith('.')) walk(path);
      } else if (/\.(?:md|ts|mts|js|mjs)$/.test(entry.name)) found.push(path);
    }
  };
  walk(join(root, 'docs'));
  walk(join(root, 'examples'));
  return found;
}

interface Import {
  file: string;
  line: number;
  specifier: string;
  names: string[];
}

/** Static imports (`import { a, type B } from 'x'`, `import x from 'x'`), dynamic ones and re-exports. */
function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8');
  const found: Import[] = [];
  const lineOf = (index: number) => text.slice(0, index).split('\n').length;
  const statement = /(?:import|export)\s+(type\s+)?([\w$*\s{},]*?)\s*from\s*['"]([^'"]+)['"]/g;
  for (const match of text.matchAll(statement)) {
    const clause = match[2] ?? '';
    const braces = /\{([^}]*)\}/.exec(clause)?.[1] ?? '';
    const names = braces
      .split(',')
      .map((item) =>
        item
          .trim()
          .replace(/^type\s+/, '')
          .split(/\s+as\s+/)[0]!
          .trim(),
      )
      .filter(Boolean);
    found.push({ file, line: lineOf(match.index), specifier: match[3]!, names });
  }
  for (const match of text.matchAll(
    /(?:import|require)\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]/g,
  )) {
    found.push({ file, line: lineOf(match.index), specifier: (match[1] ?? match[2])!, names: [] });
  }
  return found;
}

const ours = (specifier: string) => /^weft(?:-mcp)?(?:\/|$)/.test(specifier);

describe('imports of the package in docs and examples', () => {
  const imports = readerFiles()
    .flatMap(importsOf)
    .filter((each) => ours(each.specifier));
  const where = (each: Import) => `${relative(root, each.file)}:${each.line}`;

  it('finds the imports to check', () => {
    assert.ok(imports.length >= 10, `only ${imports.length} imports of the package found`);
    for (const entry of Object.keys(manifest.exports)) {
      const specifier = entry === '.' ? manifest.name : `${manifest.name}${entry.slice(1)}`;
      assert.ok(
        imports.some((each) => each.specifier === specifier),
        `no doc or example imports ${specifier}`,
      );
    }
  });

  it('never imports weft, which is another package', () => {
    const wrong = imports.filter((each) => !each.specifier.startsWith(`${manifest.name}`));
    assert.deepEqual(
      wrong.map((each) => `${where(each)} imports ${each.specifier}`),
      [],
    );
  });

  it('imports only entries the package has, and names they export', () => {
    const problems: string[] = [];
    for (const each of imports) {
      const declaration = declarationOf(each.specifier);
      if (declaration === undefined) {
        problems.push(`${where(each)}: the package has no entry ${each.specifier}`);
        continue;
      }
      const names = exportedNames(declaration);
      assert.ok(names.size > 0, `${declaration} exports nothing: was the package built?`);
      for (const name of each.names) {
        if (!names.has(name)) problems.push(`${where(each)}: ${each.specifier} exports no "${name}"`);
      }
    }
    assert.deepEqual(problems, []);
  });
});
