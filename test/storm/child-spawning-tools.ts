/**
 * Blocking tools that start processes and never stop by themselves, for the children storm
 * (children-storm.test.ts): every process they start must die with their call.
 *
 * Each tool gets `STORM_TAG` in its workers' environment, which every process it starts inherits
 * unless given an environment of its own; the suite counts live `sh` and `sleep` processes that
 * carry it. One of the ways to start a child gives it an environment without the tag on purpose
 * (`PATH` only), and is tagged through its command line instead, so weft's own mark is what must
 * find it.
 */
import { execSync, spawn } from 'node:child_process';
import { defineTool } from '../../lib/tool.js';

/** The tag of this test run: the test process's pid, passed to the workers by `env`. */
export const STORM_TAG = process.env.WEFT_STORM_TAG ?? `storm-${process.pid}`;
const env = { WEFT_STORM_TAG: STORM_TAG };

const wayArgs = {
  type: 'object',
  properties: { way: { type: 'string' } },
  required: ['way'],
} as const;

function spinFor(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {}
}

/**
 * Starts processes every millisecond from 25 ms before its deadline (at once without one), in turn:
 * a shell with a background and a foreground sleep, a detached sleep, a shell given an environment
 * of its own; until it is stopped, so that the last fork lands as the deadline passes.
 */
function forkUntilStopped(deadline: number | undefined): never {
  if (deadline !== undefined) spinFor(deadline - 25 - Date.now());
  for (let n = 0; ; n++) {
    if (n % 3 === 0) spawn('sh', ['-c', 'sleep 31 & sleep 32'], { stdio: 'ignore' });
    else if (n % 3 === 1) spawn('sleep', ['33'], { stdio: 'ignore', detached: true }).unref();
    else
      spawn('sh', ['-c', `sleep 34; : ${STORM_TAG}`], { stdio: 'ignore', env: { PATH: process.env.PATH } });
    spinFor(1);
  }
}

/** What a handler does until its call is stopped, by `way`. */
function stopOnlyFromOutside(
  { way }: { way: string },
  ctx: { checkpoint(): void; deadline: number | undefined },
): string {
  switch (way) {
    case 'fork':
      return forkUntilStopped(ctx.deadline);
    case 'exec':
      execSync('sleep 31');
      break;
    case 'grandchildren':
      execSync('sh -c "sleep 31 & sleep 32 & wait"');
      break;
    case 'detached':
      spawn('sleep', ['35'], { stdio: 'ignore', detached: true }).unref();
      spinFor(60_000);
      break;
    case 'cpu':
      spinFor(60_000);
      break;
    case 'atomics':
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60_000);
      break;
    case 'checkpoint':
      // Stops by itself exactly at its deadline, as the process's own clock sees it.
      for (;;) ctx.checkpoint();
    case 'add':
      return 'added';
  }
  return `${way} ended by itself`;
}

export const stormThreadChildren = defineTool({
  name: 'storm_thread_children',
  inputSchema: wayArgs,
  blocking: true,
  module: import.meta.url,
  export: 'stormThreadChildren',
  env,
  timeoutMs: 400,
  handler: stopOnlyFromOutside,
});

export const stormProcessChildren = defineTool({
  name: 'storm_process_children',
  inputSchema: wayArgs,
  blocking: true,
  module: import.meta.url,
  export: 'stormProcessChildren',
  isolation: 'process',
  env,
  timeoutMs: 500,
  handler: stopOnlyFromOutside,
});

/** Finishes at once, in the same pool as storm_process_children, with time for a cold start. */
export const stormProcessAdd = defineTool({
  name: 'storm_process_add',
  inputSchema: wayArgs,
  blocking: true,
  module: import.meta.url,
  export: 'stormProcessAdd',
  isolation: 'process',
  env,
  timeoutMs: 20_000,
  handler: stopOnlyFromOutside,
});

/** No deadline of its own: runs until the server stops, for the test of a server that exits. */
export const forkUntilServerStops = defineTool({
  name: 'fork_until_server_stops',
  inputSchema: wayArgs,
  blocking: true,
  module: import.meta.url,
  export: 'forkUntilServerStops',
  env,
  handler: stopOnlyFromOutside,
});

export const forkUntilServerStopsProcess = defineTool({
  name: 'fork_until_server_stops_process',
  inputSchema: wayArgs,
  blocking: true,
  module: import.meta.url,
  export: 'forkUntilServerStopsProcess',
  isolation: 'process',
  env,
  handler: stopOnlyFromOutside,
});

export const CHILD_SPAWNING_TOOLS = [
  stormThreadChildren,
  stormProcessChildren,
  stormProcessAdd,
  forkUntilServerStops,
  forkUntilServerStopsProcess,
];
