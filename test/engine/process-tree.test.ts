/**
 * The call sweep (process-tree.ts) against a child caught between its exec and its environment:
 * for a moment after the spawn returned, a child's /proc environment reads empty, and the call's
 * mark with it. A child that sits in that state on purpose (started with an empty environment, then
 * exec'ing into one with the mark) stands in for it: the sweep waits for it and kills it; a child
 * that keeps an empty environment is left alone and not waited for again. Linux only (/proc).
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { CALL_MARK_VARIABLE, callMark } from '../../lib/engine/call-mark.js';
import { killProcesses, markedProcesses } from '../../lib/engine/process-tree.js';

const onLinux = { skip: process.platform !== 'linux' && 'reads /proc' };
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function withoutEnvironment(script: string): ChildProcess {
  return spawn('/bin/sh', ['-c', script], { env: {}, stdio: 'ignore' });
}

test(
  'a child whose environment (and mark) shows only once its exec is done is swept all the same',
  onLinux,
  async () => {
    const mark = callMark(process.pid, 900_001);
    // The shell's own environment stays empty until it becomes `sleep`, with the mark exported.
    const child = withoutEnvironment(
      `sleep 0.05; export ${CALL_MARK_VARIABLE}=${mark}; exec /usr/bin/sleep 30`,
    );
    await once(child, 'spawn');
    const exited = once(child, 'exit');
    killProcesses({ mark });
    await pause(300);
    assert.deepEqual(markedProcesses(mark), [], 'nothing carrying the mark is left running');
    const [code, signal] = await exited;
    assert.deepEqual([code, signal], [null, 'SIGKILL']);
  },
);

test(
  'a child that keeps an empty environment is not taken for a call’s, and is waited for once',
  onLinux,
  async () => {
    const mark = callMark(process.pid, 900_002);
    const child = withoutEnvironment('sleep 5');
    await once(child, 'spawn');
    try {
      killProcesses({ mark });
      killProcesses({ mark });
      assert.equal(child.exitCode, null);
      assert.equal(child.signalCode, null, 'not killed: it carries no mark');
    } finally {
      child.kill('SIGKILL');
    }
  },
);
