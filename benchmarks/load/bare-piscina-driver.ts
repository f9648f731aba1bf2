/**
 * Starts the bare-Piscina floor (servers/bare-piscina-floor.ts) and asks it for one measured window
 * at a time. It is not an MCP server, so it has its own small driver instead of a LoadClient: the
 * only traffic is one line asking for a window and one line answering with the count.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { BARE_PISCINA } from '../servers/server-catalog.js';
import { serverNodeFlags } from '../servers/server-process.js';

export interface BarePiscina {
  /** The floor's process, for reading its CPU time. */
  pid: number;
  /** Runs `concurrency` noop tasks in flight for `ms`: tasks per second and tasks done. */
  measure(concurrency: number, ms: number): Promise<{ rate: number; tasks: number }>;
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 10_000;

/** Started with the same Node flags as every server (`--node-flags`). */
export async function startBarePiscina(threads?: number): Promise<BarePiscina> {
  const { script } = BARE_PISCINA.command('stdio', 0);
  const args = threads === undefined ? [] : ['--threads', String(threads)];
  const child = spawn(process.execPath, [...serverNodeFlags(), script, ...args], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const lines = createInterface({ input: child.stdout });
  const waiting: ((line: string) => void)[] = [];
  lines.on('line', (line) => waiting.shift()?.(line));
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`the bare Piscina floor exited (code ${code})`))),
  );
  exited.catch(() => {}); // only awaited while a line is expected
  const nextLine = () => Promise.race([new Promise<string>((resolve) => waiting.push(resolve)), exited]);
  const ready = await Promise.race([
    nextLine(),
    new Promise<string>((resolve) => setTimeout(() => resolve('timeout'), READY_TIMEOUT_MS).unref()),
  ]);
  if (ready !== 'ready') {
    child.kill('SIGKILL');
    throw new Error(`the bare Piscina floor did not start in ${READY_TIMEOUT_MS} ms`);
  }
  return {
    pid: child.pid!,
    async measure(concurrency, ms) {
      const answer = nextLine();
      child.stdin.write(`${concurrency} ${ms}\n`);
      const { tasks, seconds } = JSON.parse(await answer) as { tasks: number; seconds: number };
      return { rate: seconds > 0 ? tasks / seconds : 0, tasks };
    },
    async stop() {
      process.off('exit', killOnExit);
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 2_000);
      await gone;
      clearTimeout(timer);
    },
  };
}
