/**
 * What `weft dev` runs: the server's sources, TypeScript turned into JavaScript file by file, and
 * the type errors tsc finds (shown, never fatal).
 *
 * Files are transpiled one to one (esbuild's transform, no bundling) into `.weft-dev/` beside the
 * project, mirroring the source tree: a blocking tool names its own module (`module:
 * import.meta.url`) for the pool to import, which only works while every source file stays a
 * module of its own. Relative imports are written as tsc's NodeNext wants them (`./tools.js`),
 * which is also what the output holds. Bare imports resolve from the project, as `.weft-dev/`
 * lives inside it. A JavaScript entry runs as is.
 *
 * Type checking runs the project's tsc, 5.x or 7 (`--noEmit`, the project's tsconfig.json), in the
 * background after each build when the project has a tsconfig.json; the server is restarted without
 * waiting for it. Without TypeScript installed it says, once, that there is no type check.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';

export const TYPESCRIPT = /\.(?:ts|mts|cts)$/;
/** What a change to is worth a restart: sources, and the JSON they may import. */
export const WATCHED = /\.(?:ts|mts|cts|js|mjs|cjs|json)$/;
const DECLARATION = /\.d\.(?:ts|mts|cts)$/;

type Transform = (
  source: string,
  options: Record<string, unknown>,
) => Promise<{ code: string; warnings: unknown[] }>;

export class DevBuild {
  readonly outDir: string;
  #transform: Transform | undefined;
  #typeCheck: ChildProcess | undefined;

  constructor(
    /** The project root (where package.json, tsconfig.json and node_modules are). */
    readonly projectDir: string,
    readonly write: (line: string) => void,
  ) {
    this.outDir = join(projectDir, '.weft-dev');
  }

  /** Where the runnable version of `source` is (itself, for JavaScript). */
  outputOf(source: string): string {
    if (!TYPESCRIPT.test(source)) return source;
    return join(this.outDir, relative(this.projectDir, source)).replace(
      /\.(m|c)?ts$/,
      (_m, kind) => `.${kind ?? ''}js`,
    );
  }

  /** Transpiles `sources` (TypeScript ones; the rest run as they are). Resolves false on a syntax error. */
  async build(sources: readonly string[]): Promise<boolean> {
    const typescript = sources.filter((source) => TYPESCRIPT.test(source) && !DECLARATION.test(source));
    if (typescript.length === 0) return true;
    const transform = await this.#esbuild();
    let ok = true;
    for (const source of typescript) {
      const output = this.outputOf(source);
      if (!existsSync(source)) {
        rmSync(output, { force: true });
        continue;
      }
      try {
        const { code } = await transform(readFileSync(source, 'utf8'), {
          loader: 'ts',
          format: 'esm',
          target: `node${process.versions.node.split('.')[0]}`,
          sourcefile: source,
          sourcemap: 'inline',
        });
        mkdirSync(dirname(output), { recursive: true });
        writeFileSync(output, code);
      } catch (error) {
        ok = false;
        this.write(
          `weft dev: ${relative(this.projectDir, source)} does not compile:\n${(error as Error).message}`,
        );
      }
    }
    return ok;
  }

  /** Runs tsc --noEmit in the background (a run still going is stopped first); prints what it finds. */
  typeCheck(): void {
    this.#typeCheck?.kill();
    this.#typeCheck = undefined;
    const tsconfig = join(this.projectDir, 'tsconfig.json');
    if (!existsSync(tsconfig)) return;
    const tsc = this.#typeScriptCompiler();
    if (tsc === undefined) {
      this.#sayOnce('weft dev: no type check: TypeScript is not installed here (npm install -D typescript)');
      return;
    }
    const child = spawn(process.execPath, [tsc.bin, '--noEmit', '-p', tsconfig, '--pretty', 'false'], {
      cwd: this.projectDir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.#typeCheck = child;
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    child.on('error', (error) => {
      if (this.#typeCheck === child)
        this.write(`weft dev: no type check: ${tsc.bin} did not start (${error.message})`);
    });
    child.on('exit', (code) => {
      if (this.#typeCheck !== child) return;
      this.#typeCheck = undefined;
      if (code === 0) this.write(`weft dev: no type errors (TypeScript ${tsc.version})`);
      else if (code !== null) {
        this.write(
          `weft dev: type errors (TypeScript ${tsc.version}; the server runs anyway):\n${output.trimEnd()}`,
        );
      }
    });
  }

  /**
   * The project's tsc, found through `typescript`'s package.json `bin` (TypeScript 7 exports no
   * `typescript/bin/tsc`, and its tsc is a launcher for a native compiler; 5.x's is the compiler).
   */
  #typeScriptCompiler(): { bin: string; version: string } | undefined {
    const manifest = this.#resolve('typescript/package.json');
    if (manifest === undefined) return undefined;
    try {
      const { bin, version } = JSON.parse(readFileSync(manifest, 'utf8')) as {
        bin?: string | Record<string, string>;
        version: string;
      };
      const relativeBin = typeof bin === 'string' ? bin : bin?.tsc;
      if (relativeBin === undefined) return undefined;
      const path = join(dirname(manifest), relativeBin);
      return existsSync(path) ? { bin: path, version } : undefined;
    } catch {
      return undefined;
    }
  }

  #said = new Set<string>();
  #sayOnce(line: string): void {
    if (this.#said.has(line)) return;
    this.#said.add(line);
    this.write(line);
  }

  stop(): void {
    this.#typeCheck?.kill();
  }

  async #esbuild(): Promise<Transform> {
    if (this.#transform) return this.#transform;
    const path = this.#resolve('esbuild');
    if (path === undefined) {
      throw new Error('weft dev: running a TypeScript server needs esbuild: run `npm install -D esbuild`');
    }
    const esbuild = (await import(pathToFileURL(path).href)) as {
      transform?: Transform;
      default?: { transform: Transform };
    };
    this.#transform = esbuild.transform ?? esbuild.default!.transform;
    return this.#transform;
  }

  /** A package's file, from the project first, then from weft's own dependencies. */
  #resolve(specifier: string): string | undefined {
    for (const from of [join(this.projectDir, 'package.json'), import.meta.url]) {
      try {
        return createRequire(from).resolve(specifier);
      } catch {
        // Not installed there.
      }
    }
    return undefined;
  }
}
