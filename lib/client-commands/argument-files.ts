/**
 * Where `weft call` reads argument data from besides its command line: the files named by
 * `key=@path` and `--args FILE`, and stdin (`-`), which is read once, before any argument is typed,
 * since only one of them can have it.
 */
import { readFileSync } from 'node:fs';
import { readsStdin } from './call-arguments.js';

export class ArgumentFiles {
  readonly #stdin: Buffer | undefined;
  readonly #argsFile: string | undefined;

  private constructor(stdin: Buffer | undefined, argsFile: string | undefined) {
    this.#stdin = stdin;
    this.#argsFile = argsFile;
  }

  /** Reads stdin now when a word (`key=@-`) or `--args -` asks for it; refuses two readers of it. */
  static async open(words: readonly string[], argsFile: string | undefined): Promise<ArgumentFiles> {
    const readers = words.filter((word) => readsStdin([word])).length + (argsFile === '-' ? 1 : 0);
    if (readers > 1) {
      throw new Error('stdin can be read once: give - to one argument (or --args) and files to the others');
    }
    return new ArgumentFiles(readers === 1 ? await readStdin() : undefined, argsFile);
  }

  read(path: string): Buffer {
    return path === '-' ? this.#stdin! : readFileSync(path);
  }

  /** The JSON object `--args` names, or none. */
  argsObject(): Record<string, unknown> {
    if (this.#argsFile === undefined) return {};
    const where = this.#argsFile === '-' ? 'stdin' : this.#argsFile;
    let text: string;
    try {
      text = this.read(this.#argsFile).toString('utf8');
    } catch (error) {
      throw new Error(`--args ${where}: cannot read it (${(error as Error).message})`);
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new Error(`--args ${where} must hold a JSON object of arguments: ${(error as Error).message}`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new Error(`--args ${where} must hold a JSON object of arguments, like {"n": 30}`);
    }
    return value as Record<string, unknown>;
  }
}

async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
