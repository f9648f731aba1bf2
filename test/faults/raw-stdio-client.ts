/**
 * A deliberately raw JSON-RPC client for fault tests: it spawns a server over stdio, writes any
 * bytes (valid or not), and records every line that comes back, so tests can assert what an SDK
 * client would hide: that each id is answered exactly once, that nothing but JSON-RPC reaches
 * stdout, that errors carry `id: null` when they must.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';

export type Message = Record<string, unknown> & { id?: string | number | null };

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export class RawStdioClient {
  readonly child: ChildProcess;
  readonly messages: Message[] = [];
  /** stdout lines that were not JSON: must stay empty, stdout carries protocol only. */
  readonly garbage: string[] = [];
  readonly answers = new Map<string | number, Message[]>();
  stderr = '';
  readonly exited: Promise<Exit>;
  #buffer = '';
  #nextId = 1;
  #waiters: Array<{ test: (message: Message) => boolean; resolve: (message: Message) => void }> = [];

  /** `ownGroup` starts the server as a process-group leader, so a test can signal the whole group. */
  constructor(script: string, args: string[] = [], env: NodeJS.ProcessEnv = process.env, ownGroup = false) {
    this.child = spawn(process.execPath, [script, ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env,
      detached: ownGroup,
    });
    this.exited = once(this.child, 'exit').then(([code, signal]) => ({ code, signal }) as Exit);
    this.child.stdout!.setEncoding('utf8');
    this.child.stdout!.on('data', (chunk: string) => this.#onData(chunk));
    this.child.stderr!.setEncoding('utf8');
    this.child.stderr!.on('data', (chunk: string) => {
      this.stderr += chunk;
    });
    // A server that exits while we still write must not crash the test runner with EPIPE.
    this.child.stdin!.on('error', () => {});
  }

  get pid(): number {
    return this.child.pid!;
  }

  sendRaw(text: string): void {
    this.child.stdin!.write(text);
  }

  send(value: unknown): void {
    this.sendRaw(`${JSON.stringify(value)}\n`);
  }

  newId(): number {
    return this.#nextId++;
  }

  /** Sends a request and resolves with its answer (a response with the same id). */
  request(
    method: string,
    params?: Record<string, unknown>,
    id: string | number = this.newId(),
  ): Promise<Message> {
    const answer = this.waitFor(
      (message) => message.id === id && ('result' in message || 'error' in message),
    );
    this.send(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
    return answer;
  }

  notify(method: string, params?: Record<string, unknown>): void {
    this.send(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  call(name: string, args: Record<string, unknown> = {}, id?: string | number): Promise<Message> {
    return this.request('tools/call', { name, arguments: args }, id);
  }

  async initialize(): Promise<Message> {
    const answer = await this.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'weft-fault-tests', version: '0' },
    });
    this.notify('notifications/initialized');
    return answer;
  }

  /** Resolves with the first message, past or future, that passes `test`. */
  waitFor(test: (message: Message) => boolean, timeoutMs = 20_000): Promise<Message> {
    const seen = this.messages.find(test);
    if (seen) return Promise.resolve(seen);
    return new Promise<Message>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((waiter) => waiter.resolve !== done);
        reject(new Error(`no matching message within ${timeoutMs} ms; stderr:\n${this.stderr.slice(-2000)}`));
      }, timeoutMs);
      const done = (message: Message) => {
        clearTimeout(timer);
        resolve(message);
      };
      this.#waiters.push({ test, resolve: done });
    });
  }

  /** Responses whose id is null (answers to lines that had no usable id). */
  nullIdErrors(): Message[] {
    return this.messages.filter((message) => message.id === null && 'error' in message);
  }

  /** Ends stdin and waits for the server to exit. */
  async close(): Promise<Exit> {
    this.child.stdin!.end();
    return this.exited;
  }

  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }

  #onData(chunk: string): void {
    // Look for newlines in the new chunk only, so a multi-megabyte line costs one pass, not many.
    let start = 0;
    let newline = chunk.indexOf('\n');
    while (newline !== -1) {
      const line = this.#buffer + chunk.slice(start, newline);
      this.#buffer = '';
      if (line.trim() !== '') this.#onLine(line);
      start = newline + 1;
      newline = chunk.indexOf('\n', start);
    }
    this.#buffer += chunk.slice(start);
  }

  #onLine(line: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      this.garbage.push(line);
      return;
    }
    for (const message of (Array.isArray(parsed) ? parsed : [parsed]) as Message[]) {
      this.messages.push(message);
      if ((typeof message.id === 'string' || typeof message.id === 'number') && !('method' in message)) {
        const list = this.answers.get(message.id) ?? [];
        list.push(message);
        this.answers.set(message.id, list);
      }
      for (const waiter of [...this.#waiters]) {
        if (waiter.test(message)) {
          this.#waiters = this.#waiters.filter((w) => w !== waiter);
          waiter.resolve(message);
        }
      }
    }
  }
}

/** The text of a CallToolResult's first content block. */
export function textOf(answer: Message): string {
  const result = answer.result as { content?: Array<{ text?: string }> } | undefined;
  return result?.content?.[0]?.text ?? '';
}

export function isToolError(answer: Message): boolean {
  return (answer.result as { isError?: boolean } | undefined)?.isError === true;
}

export function errorCode(answer: Message): number | undefined {
  return (answer.error as { code?: number } | undefined)?.code;
}
