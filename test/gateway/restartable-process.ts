/**
 * Starts restartable-upstream.js as a child process on a given port (waiting for its announcement)
 * and SIGKILLs it: what the restart tests do to a real upstream.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const script = fileURLToPath(new URL('restartable-upstream.js', import.meta.url));

export function startUpstream(port: number, set: 'before' | 'after'): Promise<ChildProcess> {
  const child = spawn(process.execPath, [script, String(port), set], { stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`the upstream did not start:\n${output}`)), 10_000);
    child.once('exit', (code) => reject(new Error(`the upstream exited with ${code}:\n${output}`)));
    child.stderr!.on('data', (chunk) => {
      output += chunk;
      if (!output.includes('restartable upstream:')) return;
      clearTimeout(timer);
      resolve(child);
    });
  });
}

export function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}
