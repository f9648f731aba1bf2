/**
 * What the package offers an importer: its entry points (package.json `exports`) and, for each, the
 * names its declaration file exports, read from the built `.d.ts` (types and values alike, as an
 * `import { ... }` may name either).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { root } from '../docs/markdown.js';

export const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  name: string;
  exports: Record<string, { types: string; import: string }>;
  bin: Record<string, string>;
  files: string[];
  scripts: Record<string, string>;
};

/** `weft-mcp/tool` → its declaration file, or undefined when the package has no such entry. */
export function declarationOf(specifier: string): string | undefined {
  const subpath = specifier === manifest.name ? '.' : `.${specifier.slice(manifest.name.length)}`;
  const entry = manifest.exports[subpath];
  return entry === undefined ? undefined : join(root, entry.types);
}

/** Every name the declaration file exports, following `export * from`. */
export function exportedNames(file: string, seen = new Set<string>()): Set<string> {
  const names = new Set<string>();
  if (seen.has(file) || !existsSync(file)) return names;
  seen.add(file);
  const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
  for (const [, list] of text.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g)) {
    for (const item of list!.split(',')) {
      const words = item
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/);
      const name = words.at(-1)?.trim();
      if (name) names.add(name);
    }
  }
  const declared =
    /export\s+(?:declare\s+)?(?:abstract\s+)?(?:const|let|function|class|interface|type|enum|namespace)\s+([A-Za-z_$][\w$]*)/g;
  for (const [, name] of text.matchAll(declared)) names.add(name!);
  for (const [, from] of text.matchAll(/export\s+\*\s+from\s+['"]([^'"]+)['"]/g)) {
    const target = join(dirname(file), from!.replace(/\.js$/, '.d.ts'));
    for (const name of exportedNames(target, seen)) names.add(name);
  }
  return names;
}
