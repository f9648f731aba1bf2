/**
 * A node child process started by a test and awaited until it says it is ready: what every suite
 * that runs a real server, replica or example in a process of its own does. All it prints (stderr,
 * and stdout when asked for) is gathered and looked at after each chunk; the start fails, quoting
 * all it printed, when the child exits first or is not ready in time.
 */
import { type ChildProcess, spawn } from 'node:child_process';

export interface ReadyChildOptions<T> {
  /** What it is, for the errors ("the demo", "the replica"). */
  name: string;
  /** Looks at everything printed so far (and the child, for its pid); ready once this returns a value. */
  ready: (output: string, child: ChildProcess) => T | null | undefined;
  /** Environment over the test's own. */
  env?: Record<string, string>;
  /** Reads stdout as well as stderr (by default stdout is ignored). */
  stdout?: boolean;
  timeoutMs?: number;
}

/**
 * Spawns `node <args>` and resolves the child and what `ready` returned, once it returned one, with
 * everything it has printed so far and goes on printing (`output()`).
 */
export function startReadyChild<T>(
  args: string[],
  { name, ready, env = {}, stdout = false, timeoutMs = 10_000 }: ReadyChildOptions<T>,
): Promise<{ child: ChildProcess; ready: T; output: () => string }> {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', stdout ? 'pipe' : 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(
      () => reject(new Error(`${name} did not start within ${timeoutMs} ms:\n${output}`)),
      timeoutMs,
    );
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code ?? signal}) before it was ready:\n${output}`));
    });
    const onData = (chunk: Buffer) => {
      output += chunk;
      const found = ready(output, child);
      if (found === null || found === undefined) return;
      clearTimeout(timer);
      resolve({ child, ready: found, output: () => output });
    };
    child.stderr!.on('data', onData);
    child.stdout?.on('data', onData);
  });
}
