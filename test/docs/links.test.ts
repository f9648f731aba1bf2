/**
 * Every relative link in README.md and docs/ resolves: the file exists, and an anchor names a
 * heading of that file (GitHub's slugs). Moving text between pages breaks links silently otherwise.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, it } from 'node:test';
import { anchors, docFiles, links, read, root } from './markdown.js';

describe('links between README.md and docs/', () => {
  for (const file of docFiles()) {
    it(`${file}: every relative link and anchor resolves`, () => {
      const broken: string[] = [];
      for (const { line, target } of links(read(file))) {
        if (/^[a-z]+:/i.test(target)) continue; // https:, mailto:
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const targetFile = path === '' ? file : normalize(join(dirname(file), decodeURIComponent(path)));
        if (targetFile.startsWith('..') || !existsSync(join(root, targetFile))) {
          broken.push(`${file}:${line}: ${target} (no file ${targetFile})`);
          continue;
        }
        if (anchor !== undefined && targetFile.endsWith('.md') && !anchors(read(targetFile)).has(anchor)) {
          broken.push(`${file}:${line}: ${target} (no heading #${anchor} in ${targetFile})`);
        }
      }
      assert.deepEqual(broken, []);
    });
  }

  it('docs/README.md lists every page of docs/', () => {
    const index = read('docs/README.md');
    const listed = new Set(links(index).map(({ target }) => target.split('#')[0]));
    const missing = docFiles()
      .filter((file) => file.startsWith('docs/') && file !== 'docs/README.md')
      .filter((file) => !listed.has(file.slice('docs/'.length)));
    assert.deepEqual(missing, []);
  });

  it('the anchors follow GitHub: punctuation dropped, repeats numbered', () => {
    const slugs = anchors("# The handler's `ctx`\n## Modern HTTP: headers, x-mcp-header\n## Tags\n## Tags\n");
    assert.deepEqual([...slugs], ['the-handlers-ctx', 'modern-http-headers-x-mcp-header', 'tags', 'tags-1']);
  });
});
