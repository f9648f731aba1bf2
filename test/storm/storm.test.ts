/**
 * The storm: threads ended at every moment of their lives, for a bounded time, and the server lives
 * on. Each storm runs in a child process (storm-child.ts), so a fatal error in Node shows here as
 * the child's death by SIGABRT (exit code 134), not as the test runner's own.
 *
 * Before pool threads loaded their entry through `import()` (workers/pool-thread-entry.cjs) and
 * held the termination of a thread still loading (lib/engine/thread-life.ts), the churn storm ended
 * its process with "FATAL ERROR: v8::Module::IsGraphAsync must be used on an instantiated module".
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('./storm-child.js', import.meta.url));

interface StormReport {
  sent: number;
  answered: number;
  cancelled: number;
  twice: number;
  unanswered: number;
  servers: number;
  outcomes: Record<string, number>;
  after: Record<string, string>;
}

interface StormEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
  report: StormReport | undefined;
  stderr: string;
}

function storm(mode: 'churn' | 'mixed', seconds: number): Promise<StormEnd> {
  const child = spawn(process.execPath, [CHILD, '--mode', mode, '--seconds', String(seconds)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-20_000);
  });
  // A storm that hangs is a failure too: it gets a minute past its own length, then is killed.
  const killer = setTimeout(() => child.kill('SIGKILL'), (seconds + 60) * 1000);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(killer);
      const line = stdout.trim().split('\n').at(-1);
      let report: StormReport | undefined;
      try {
        report = line ? (JSON.parse(line) as StormReport) : undefined;
      } catch {
        report = undefined;
      }
      resolve({ code, signal, report, stderr });
    });
  });
}

function assertLivedOn(end: StormEnd, tools: string[]): void {
  const fatal = /FATAL ERROR[^\n]*|Assertion failed[^\n]*/.exec(end.stderr)?.[0];
  assert.equal(
    end.signal,
    null,
    `the storm's process was killed by ${end.signal}${fatal ? `: ${fatal}` : ''}`,
  );
  assert.equal(end.code, 0, `the storm's process exited with ${end.code}${fatal ? `: ${fatal}` : ''}`);
  const report = end.report;
  assert.ok(report, `the storm printed no report; its stderr ends with:\n${end.stderr.slice(-2000)}`);
  assert.ok(report.sent > 100, `only ${report.sent} requests were sent`);
  assert.equal(report.twice, 0, 'a request was answered twice');
  assert.equal(report.unanswered, 0, 'a request was never answered');
  assert.equal(report.answered + report.cancelled, report.sent, JSON.stringify(report));
  for (const tool of tools) {
    assert.match(
      report.after[tool] ?? '',
      /^\w+ 5\b/,
      `after the storm, ${tool} answered ${report.after[tool]}`,
    );
  }
}

describe('the storm', { concurrency: false }, () => {
  it('the demo churn (two threads, 150 ms deadlines, 2 s spins over HTTP) leaves the process alive', async () => {
    assertLivedOn(await storm('churn', 40), ['spin']);
  });

  it('deadlines from 1 ms, cancels, slow imports, pools growing and close() at any moment leave it alive', async () => {
    assertLivedOn(await storm('mixed', 30), ['spin', 'polite', 'capped', 'isolated']);
  });
});
