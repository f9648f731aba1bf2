/**
 * The stdio wire: newline-delimited JSON-RPC on a child's stdin/stdout. Writes issued in one tick
 * are corked into a single pipe write, so a burst of 64 pipelined calls costs one syscall, not 64:
 * the client must never be the bottleneck it is measuring.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import type { Wire, WireMessage } from './wire.js';

export class StdioWire implements Wire {
  onMessage: (message: WireMessage) => void = () => {};
  onClose: (reason: string) => void = () => {};
  readonly #child: ChildProcessWithoutNullStreams;
  #partial: string[] = [];
  #corked = false;
  #closed = false;

  constructor(child: ChildProcessWithoutNullStreams) {
    this.#child = child;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => this.#onData(chunk));
    child.stdin.on('error', () => {}); // a server that exits mid-write is reported by onClose
    child.once('exit', (code, signal) => {
      if (!this.#closed)
        this.onClose(
          `server ${child.spawnargs.slice(1).join(' ')} (pid ${child.pid}) exited (code ${code}, signal ${signal})`,
        );
    });
  }

  send(message: WireMessage): void {
    if (!this.#corked) {
      this.#corked = true;
      this.#child.stdin.cork();
      process.nextTick(() => {
        this.#corked = false;
        this.#child.stdin.uncork();
      });
    }
    this.#child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  negotiated(): void {}

  async close(): Promise<void> {
    this.#closed = true;
    this.#child.stdin.end();
  }

  #onData(chunk: string): void {
    // A chunk without a newline is the middle of a long line: kept aside, not concatenated and
    // split again at every chunk (that made an 8 MiB answer cost the generator O(n^2)).
    if (!chunk.includes('\n')) {
      this.#partial.push(chunk);
      return;
    }
    this.#partial.push(chunk);
    const lines = this.#partial.join('').split('\n');
    this.#partial = [lines.pop() ?? ''];
    for (const line of lines) {
      if (line.trim() === '') continue;
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch {
        continue; // a stray non-JSON line on stdout is the server's bug, not a reply
      }
      if (Array.isArray(message)) for (const item of message) this.onMessage(item as WireMessage);
      else this.onMessage(message as WireMessage);
    }
  }
}
