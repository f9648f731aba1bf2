/**
 * `weft serve <module>`: finds the module, imports it and takes its default export (an McpServer,
 * or a function that returns one), turning what a newcomer meets first into a message that says
 * what to do: a path that is not there, a TypeScript file this Node cannot run, a package the
 * module imports that is not installed, a registration mistake.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { McpServer } from '../server.js';
import { CommandFailure, EXIT } from './cli-failure.js';

const TYPESCRIPT = /\.(?:ts|mts|cts)$/;

export async function loadServer(file: string): Promise<McpServer> {
  const path = resolve(file);
  if (!existsSync(path)) {
    const hint = TYPESCRIPT.test(file) ? '' : ' (was it built? run tsc first)';
    throw new CommandFailure(`cannot find ${file} (looked for ${path})${hint}`, EXIT.mistyped);
  }
  let module: { default?: unknown };
  try {
    module = (await import(pathToFileURL(path).href)) as { default?: unknown };
  } catch (error) {
    throw loadFailure(file, error);
  }
  let exported: unknown;
  try {
    exported = typeof module.default === 'function' ? await module.default() : module.default;
  } catch (error) {
    throw new CommandFailure(`${file}: its default export threw: ${firstLine(error)}`);
  }
  if (!(exported instanceof McpServer)) {
    throw new CommandFailure(
      `${file} must default-export an McpServer, or a function that returns one (export default server)`,
    );
  }
  return exported;
}

function loadFailure(file: string, error: unknown): CommandFailure {
  const code = (error as { code?: string })?.code;
  if (code === 'ERR_UNKNOWN_FILE_EXTENSION' && TYPESCRIPT.test(file)) {
    return new CommandFailure(
      `${file} is TypeScript, which this Node cannot run as is.\n` +
        `Run tsc first and serve the compiled file (weft serve dist/...js), or run: weft dev ${file}`,
      EXIT.mistyped,
    );
  }
  if (code === 'ERR_MODULE_NOT_FOUND') {
    const missing = /Cannot find (?:package|module) '([^']+)'/.exec(firstLine(error))?.[1];
    const fix =
      missing !== undefined && !missing.startsWith('/') && !missing.startsWith('.')
        ? `Install it (npm install ${packageOf(missing)}), or fix the import.`
        : 'Build it (tsc), or fix the import.';
    return new CommandFailure(`${file} could not be loaded: ${firstLine(error)}.\n${fix}`);
  }
  // A registration mistake already says which tool and what to fix.
  if ((error as Error)?.name === 'ToolRegistrationError') return new CommandFailure(firstLines(error));
  return new CommandFailure(`${file} failed while loading: ${firstLines(error)}`);
}

function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

function firstLine(error: unknown): string {
  return ((error as Error)?.message ?? String(error)).split('\n')[0]!.replace(/\.$/, '');
}

/** A message's own lines (a registration error lists each problem), without a stack. */
function firstLines(error: unknown): string {
  return (error as Error)?.message ?? String(error);
}
