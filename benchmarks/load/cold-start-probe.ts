/**
 * One cold start of a server over stdio, timed from spawn: until `initialize` is answered, and until
 * the first blocking call is answered after it. The CPU the process had used by each answer is read
 * from /proc as well, because wall time on a shared machine swings with whoever else runs, while the
 * CPU a start-up takes does not. The child is killed right after; nothing outlives one probe.
 */
import { spawn } from 'node:child_process';
import { cpuSeconds } from './process-probe.js';

export interface ColdStart {
  /** Spawn to the `initialize` answer, ms of wall time. */
  initializeMs: number;
  /** Spawn to the first blocking call's answer (after initialize), ms of wall time. */
  firstCallMs: number;
  /** CPU ms (all threads) the process had used when `initialize` was answered, if /proc says. */
  initializeCpuMs: number | undefined;
  /** CPU ms (all threads) the process had used when the first call was answered. */
  firstCallCpuMs: number | undefined;
  /**
   * Modules loaded by the first call's answer (read then, not at initialize, so that stderr has
   * caught up), when started with load/module-counter.js preloaded; 0 otherwise.
   */
  modules: number;
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'weft-bench-cold-start', version: '1.0.0' },
  },
};

const TIMEOUT_MS = 20_000;

/** Spawns `node [flags] script args`, sends initialize at once, then calls `tool` with `{}`. */
export function coldStart(
  script: string,
  args: readonly string[],
  tool: string,
  nodeFlags: readonly string[] = [],
  env: NodeJS.ProcessEnv = process.env,
): Promise<ColdStart> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [...nodeFlags, script, ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env,
    });
    let stderr = '';
    let modules = 0;
    let partial = '';
    let initializeMs = 0;
    let initializeCpuMs: number | undefined;
    const finish = (error?: Error, value?: ColdStart) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      if (error) reject(error);
      else resolve(value!);
    };
    const timer = setTimeout(
      () => finish(new Error(`no answer in ${TIMEOUT_MS} ms: ${stderr.slice(0, 300)}`)),
      TIMEOUT_MS,
    );
    const cpuMs = () => {
      const seconds = cpuSeconds(child.pid!);
      return seconds === undefined ? undefined : seconds * 1000;
    };
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      modules += chunk.split('#module ').length - 1;
      stderr = (stderr + chunk).slice(-4000);
    });
    child.stdin.on('error', () => {});
    child.once('exit', (code) => finish(new Error(`exited (code ${code}): ${stderr.slice(0, 300)}`)));
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        if (line.trim() === '') continue;
        let message: { id?: unknown; error?: { message?: string } };
        try {
          message = JSON.parse(line);
        } catch {
          continue;
        }
        if (message.id === 1) {
          initializeMs = performance.now() - started;
          initializeCpuMs = cpuMs();
          child.stdin.write(
            `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n${JSON.stringify({
              jsonrpc: '2.0',
              id: 2,
              method: 'tools/call',
              params: { name: tool, arguments: {} },
            })}\n`,
          );
        } else if (message.id === 2) {
          const firstCallMs = performance.now() - started;
          const firstCallCpuMs = cpuMs();
          if (message.error) finish(new Error(`${tool} failed: ${message.error.message}`));
          else finish(undefined, { initializeMs, firstCallMs, initializeCpuMs, firstCallCpuMs, modules });
        }
      }
    });
    child.stdin.write(`${JSON.stringify(INITIALIZE)}\n`);
  });
}
