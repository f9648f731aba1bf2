#!/usr/bin/env node
/**
 * Assembles lib/protocol/json-escape.wat into lib/protocol/json-escape-module.ts (the module's bytes
 * as base64), so the build needs no WebAssembly tooling and nothing is read from disk at run time.
 * Run it after editing the .wat; test/protocol/json-escape.test.ts fails while the two disagree.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import wabtInit from 'wabt';

const watPath = fileURLToPath(new URL('../lib/protocol/json-escape.wat', import.meta.url));
const modulePath = fileURLToPath(new URL('../lib/protocol/json-escape-module.ts', import.meta.url));

export async function assembledBase64() {
  const wabt = await wabtInit();
  const parsed = wabt.parseWat('json-escape.wat', readFileSync(watPath, 'utf8'), { simd: true });
  try {
    parsed.validate();
    return Buffer.from(parsed.toBinary({}).buffer).toString('base64');
  } finally {
    parsed.destroy();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const base64 = await assembledBase64();
  const lines = base64.match(/.{1,96}/g).map((line) => `  '${line}',`);
  writeFileSync(
    modulePath,
    [
      '/**',
      ' * The WebAssembly module assembled from json-escape.wat by scripts/build-json-escape.mjs: do not',
      ' * edit; edit the .wat and run the script (the json-escape test checks that the two agree).',
      ' */',
      'export const JSON_ESCAPE_MODULE_BASE64 = [',
      ...lines,
      "].join('');",
      '',
    ].join('\n'),
  );
  console.log(`wrote ${modulePath} (${Buffer.from(base64, 'base64').length} bytes of WebAssembly)`);
}
