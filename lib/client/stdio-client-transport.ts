/**
 * The client's stdio transport: spawns the server command and speaks newline-delimited JSON-RPC
 * on its stdin/stdout.
 *
 * stdout carries protocol only; a line that is not JSON is reported through `onStderr`-style
 * diagnostics instead of failing the connection (a server printing a banner by mistake should not
 * take every pending call down with it). The child's stderr is inherited by default so its logs stay
 * visible. Closing ends stdin first (a well-behaved server exits on EOF), then sends SIGTERM and
 * finally SIGKILL if the process lingers.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { JsonRpcMessage } from '../protocol/json-rpc.js';
import type { ClientTransport, SendOptions, TransportReceiver } from './client-transport.js';

export interface StdioClientOptions {
  command: string;
  args?: readonly string[];
  /** Added to the parent's environment (a value of undefined removes the variable). */
  env?: Readonly<Record<string, string | undefined>>;
  cwd?: string;
  /** What to do with the child's stderr: inherit it (the default), ignore it, or hear each chunk. */
  stderr?: 'inherit' | 'ignore' | ((chunk: string) => void);
  /** How long close() waits for the process to exit after EOF before SIGTERM (ms, default 2000). */
  exitGraceMs?: number;
}

export class StdioClientTransport implements ClientTransport {
  readonly kind = 'stdio';
  readonly #options: StdioClientOptions;
  #child: ChildProcess | undefined;
  #receiver: TransportReceiver | undefined;
  #buffered = '';
  #closing = false;
  #exited: Promise<void> = Promise.resolve();

  constructor(options: StdioClientOptions) {
    if (typeof options?.command !== 'string' || options.command === '') {
      throw new TypeError('StdioClientTransport needs { command: "node", args: [...] }: the server to spawn');
    }
    this.#options = options;
  }

  /** The child's pid once started (for tests that stop it from outside). */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  start(receiver: TransportReceiver): Promise<void> {
    this.#receiver = receiver;
    const env: Record<string, string | undefined> = { ...process.env };
    for (const [key, value] of Object.entries(this.#options.env ?? {})) {
      if (value === undefined) delete env[key];
      else env[key] = value;
    }
    const stderr = this.#options.stderr ?? 'inherit';
    const child = spawn(this.#options.command, [...(this.#options.args ?? [])], {
      env,
      cwd: this.#options.cwd,
      stdio: ['pipe', 'pipe', typeof stderr === 'function' ? 'pipe' : stderr],
    });
    this.#child = child;
    if (typeof stderr === 'function') {
      child.stderr?.setEncoding('utf8');
      child.stderr?.on('data', stderr);
    }
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => this.#onData(chunk));
    // EPIPE on a dead child's stdin surfaces as the exit below, not as a crash.
    child.stdin?.on('error', () => {});
    this.#exited = new Promise<void>((resolve) => {
      child.once('exit', (code, signal) => {
        resolve();
        const why = this.#closing
          ? undefined
          : new Error(`the server process "${this.#options.command}" exited (${signal ?? `code ${code}`})`);
        this.#receiver?.closed(why);
      });
    });
    return new Promise<void>((resolve, reject) => {
      child.once('spawn', () => resolve());
      child.once('error', (error) => {
        reject(new Error(`could not start "${this.#options.command}": ${error.message}`));
        this.#receiver?.closed(error);
      });
    });
  }

  #onData(chunk: string): void {
    this.#buffered += chunk;
    let newline = this.#buffered.indexOf('\n');
    while (newline !== -1) {
      const line = this.#buffered.slice(0, newline).trim();
      this.#buffered = this.#buffered.slice(newline + 1);
      if (line !== '') {
        try {
          this.#receiver?.message(JSON.parse(line) as JsonRpcMessage);
        } catch {
          process.emitWarning(`weft/client: ignored a stdout line that is not JSON: ${line.slice(0, 200)}`);
        }
      }
      newline = this.#buffered.indexOf('\n');
    }
  }

  send(message: JsonRpcMessage, _options?: SendOptions): Promise<void> {
    const stdin = this.#child?.stdin;
    if (!stdin || stdin.destroyed || this.#child?.exitCode !== null) {
      return Promise.reject(new Error(`the server process "${this.#options.command}" is not running`));
    }
    return new Promise<void>((resolve, reject) => {
      stdin.write(`${JSON.stringify(message)}\n`, (error) => {
        if (error) reject(new Error(`could not write to "${this.#options.command}": ${error.message}`));
        else resolve();
      });
    });
  }

  cancelsByClosingStream(): boolean {
    return false;
  }

  async close(): Promise<void> {
    const child = this.#child;
    if (!child || this.#closing) return this.#exited;
    this.#closing = true;
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.stdin?.end();
    const grace = this.#options.exitGraceMs ?? 2000;
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), grace).unref();
    }, grace);
    timer.unref();
    await this.#exited;
    clearTimeout(timer);
  }
}
