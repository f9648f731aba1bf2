/**
 * What `weft list / call / inspect <target>` talk to: a URL (`http(s)://` Streamable HTTP,
 * `ws(s)://` WebSocket), a server module (`./dist/server.js`, served over stdio by `weft serve`),
 * or a command line that starts a stdio server (`"node dist/server.js --stdio"`, split on spaces;
 * quote an argument with spaces in it).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CommandFailure, EXIT } from '../cli/cli-failure.js';
import type { ClientTarget } from '../client/index.js';

const CLI = fileURLToPath(new URL('../cli.js', import.meta.url));

export function clientTarget(target: string): ClientTarget {
  if (/^(?:https?|wss?):\/\//i.test(target)) return new URL(target);
  if (/\.(?:m?js|cjs)$/.test(target) && existsSync(target)) {
    return {
      command: process.execPath,
      args: [CLI, 'serve', resolve(target), '--stdio', '--quiet'],
      stderr: 'inherit',
    };
  }
  if (/^\S+\.(?:m?js|cjs)$/.test(target)) {
    throw new CommandFailure(`cannot find ${target} (looked for ${resolve(target)})`, EXIT.mistyped);
  }
  if (/^\S+\.(?:m?ts|cts)$/.test(target)) {
    throw new CommandFailure(
      `${target} is TypeScript: run tsc first and give the compiled module (dist/...js), ` +
        'or serve it with weft dev and give its URL',
      EXIT.mistyped,
    );
  }
  const words = splitCommand(target);
  if (words.length === 0) throw new Error('the target is empty: give a URL, a server module, or a command');
  const [command, ...args] = words;
  return { command: command!, args, stderr: 'inherit' };
}

/** Splits a command line on spaces, keeping "double" or 'single' quoted words whole. */
function splitCommand(line: string): string[] {
  const words: string[] = [];
  const pattern = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (const match of line.matchAll(pattern)) words.push(match[1] ?? match[2] ?? match[3]!);
  return words;
}
