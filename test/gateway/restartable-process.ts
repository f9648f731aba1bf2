/**
 * Starts restartable-upstream.js as a child process on a given port (waiting for its announcement)
 * and SIGKILLs it: what the restart tests do to a real upstream.
 */
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startReadyChild } from '../support/ready-child.js';

const script = fileURLToPath(new URL('restartable-upstream.js', import.meta.url));

export async function startUpstream(port: number, set: 'before' | 'after'): Promise<ChildProcess> {
  const { child } = await startReadyChild([script, String(port), set], {
    name: 'the upstream',
    ready: (output) => output.includes('restartable upstream:') || undefined,
  });
  return child;
}

export function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}
