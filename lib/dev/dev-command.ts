/**
 * `weft dev <server.ts|server.js> [--http PORT] [--ws PORT] [--host HOST] ...`: serves a server
 * module and restarts it whenever a file under the entry's directory changes.
 *
 * The server runs as a child `weft serve` on the same flags every time, so it keeps its port (the
 * old one has exited before the new one binds); what changed is printed before each restart. A
 * file that does not compile keeps the running server up until it does; type errors are printed
 * (dev-build.ts) and never stop it. A server that crashes is restarted by the next change.
 *
 * The server runs in a process group of its own: Ctrl-C in a terminal signals the whole foreground
 * group, and a server in weft dev's group would get SIGINT from the terminal and then weft dev's own
 * SIGTERM, which it takes as "again, exiting now" and skips its drain. So only weft dev hears the
 * terminal, and stops the server once; if weft dev itself ends another way, the server goes too.
 *
 * Watching is chokidar's: node's recursive `fs.watch` on Linux loses a file that an editor saves
 * atomically (written to a temporary file, renamed over the original), and later edits to it were
 * never seen. Changes are gathered for 100 ms so a save that touches several files restarts once.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DevBuild, WATCHED } from './dev-build.js';

export const DEV_USAGE =
  'weft dev <server.ts|server.js> [--http PORT (default 3000)] [--ws PORT] [--host HOST] [serve options]';

const CLI = fileURLToPath(new URL('../cli.js', import.meta.url));
const SETTLE_MS = 100;
const STOP_WAIT_MS = 5_000;

export async function runDevCommand(argv: string[]): Promise<number> {
  const [entryArg, ...rest] = argv;
  if (entryArg === undefined || entryArg.startsWith('-')) {
    process.stderr.write(`usage: ${DEV_USAGE}\n`);
    return 2;
  }
  const entry = resolve(entryArg);
  if (!existsSync(entry)) {
    process.stderr.write(`weft dev: ${entryArg} does not exist\n`);
    return 2;
  }
  const serveFlags = rest.some((flag) => flag === '--http' || flag === '--ws' || flag === '--stdio')
    ? rest
    : ['--http', '3000', ...rest];
  if (serveFlags.includes('--stdio')) {
    process.stderr.write(
      'weft dev: --stdio cannot survive a restart (the client would lose its pipe); use --http\n',
    );
    return 2;
  }
  const dev = new DevSession(entry, serveFlags);
  await dev.start();
  return new Promise<number>((done) => {
    const stop = () => dev.stop().then(() => done(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    // The terminal closed: the server, in a group of its own, would not hear it.
    process.once('SIGHUP', stop);
  });
}

class DevSession {
  readonly #entry: string;
  readonly #flags: string[];
  readonly #sourceDir: string;
  readonly #build: DevBuild;
  #child: ChildProcess | undefined;
  #watcher: { close(): Promise<void> } | undefined;
  readonly #changed = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  /** The restart under way, so changes during one wait for it. */
  #restarting: Promise<void> = Promise.resolve();

  constructor(entry: string, flags: string[]) {
    this.#entry = entry;
    this.#flags = flags;
    this.#sourceDir = dirname(entry);
    this.#build = new DevBuild(projectDirOf(entry), (line) => process.stderr.write(`${line}\n`));
  }

  async start(): Promise<void> {
    const sources = listSources(this.#sourceDir, this.#build.outDir);
    const ok = await this.#build.build(sources);
    const { watch } = await import('chokidar');
    const outDir = this.#build.outDir;
    const root = this.#sourceDir;
    const watcher = watch(this.#sourceDir, {
      ignoreInitial: true,
      // A directory is walked unless ignored; a file counts only if it is a source.
      ignored: (path, stats) =>
        ignored(path, outDir, root) || (stats?.isFile() === true && !WATCHED.test(path)),
    });
    watcher.on('all', (_event, path) => {
      if (!WATCHED.test(path) || ignored(path, outDir, root)) return;
      this.#changed.add(path);
      clearTimeout(this.#timer);
      this.#timer = setTimeout(() => this.#flush(), SETTLE_MS);
    });
    await new Promise<void>((ready) => watcher.once('ready', () => ready()));
    this.#watcher = watcher;
    this.#log(`watching ${this.#relative(this.#sourceDir) || '.'} (Ctrl-C stops)`);
    if (ok) this.#spawn();
    else this.#log('fix the error above; the server starts once it compiles');
    this.#build.typeCheck();
  }

  async stop(): Promise<void> {
    clearTimeout(this.#timer);
    await this.#watcher?.close();
    this.#build.stop();
    await this.#stopChild();
  }

  #flush(): void {
    const changed = [...this.#changed];
    this.#changed.clear();
    this.#restarting = this.#restarting.then(async () => {
      this.#log(`${changed.map((path) => this.#relative(path)).join(', ')} changed; restarting`);
      if (!(await this.#build.build(changed))) {
        this.#log('not restarted: fix the error above (the previous version keeps serving)');
        return;
      }
      await this.#stopChild();
      this.#spawn();
      this.#build.typeCheck();
    });
  }

  #spawn(): void {
    const child = spawn(process.execPath, [CLI, 'serve', this.#build.outputOf(this.#entry), ...this.#flags], {
      // Its own process group (see the top); no stdin, which a background group may not read.
      detached: true,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    this.#child = child;
    const orphaned = () => child.kill('SIGKILL');
    process.once('exit', orphaned);
    child.once('exit', () => process.off('exit', orphaned));
    this.#log(
      `server started (pid ${child.pid}): weft serve ${this.#relative(this.#entry)} ${this.#flags.join(' ')}`,
    );
    child.on('exit', (code, signal) => {
      if (this.#child !== child) return;
      this.#child = undefined;
      this.#log(`the server exited (${signal ?? `code ${code}`}); it starts again on the next change`);
    });
  }

  /** Stops the running server and waits until it has exited, so its port is free again. */
  async #stopChild(): Promise<void> {
    const child = this.#child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    this.#child = undefined;
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_WAIT_MS);
    await exited;
    clearTimeout(timer);
  }

  #relative(path: string): string {
    return relative(process.cwd(), path);
  }

  #log(line: string): void {
    process.stderr.write(`weft dev: ${line}\n`);
  }
}

/** The nearest directory at or above the entry with a package.json (else the entry's own). */
function projectDirOf(entry: string): string {
  for (let dir = dirname(entry); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return dirname(entry);
  }
}

/** Build output, node_modules and dot-files or -directories under the watched directory. */
function ignored(path: string, outDir: string, root: string): boolean {
  if (path.startsWith(outDir)) return true;
  return /(?:^|[\\/])(?:node_modules|\.[^\\/]+)(?:[\\/]|$)/.test(relative(root, path));
}

function listSources(dir: string, outDir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.name === 'node_modules' || entry.name.startsWith('.') || path === outDir) continue;
    if (entry.isDirectory()) found.push(...listSources(path, outDir));
    else if (WATCHED.test(path)) found.push(path);
  }
  return found;
}
