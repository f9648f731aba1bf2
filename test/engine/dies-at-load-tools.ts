/**
 * Two blocking tools whose module ends its thread while it loads, before any handler runs: the
 * stand-in for a thread that dies between being handed a call and starting its handler (a thread
 * that cannot start, a module that cannot load). The module is imported by the test's own process
 * too, where it only defines the tools: it ends threads only inside a pool thread, and then, for
 * `dies_once_at_load`, only the first time in this process (a marker file named after the pid),
 * and for `dies_at_load` every time. Registered with the export names below.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMainThread, workerData } from 'node:worker_threads';
import { defineTool } from '../../lib/tool.js';

/** The marker of the first load in this process; the test removes it. */
export const firstLoadMarker = (pid = process.pid) => join(tmpdir(), `weft-dies-once-${pid}`);

const inPoolThread = !isMainThread && (workerData as { cancelFlags?: unknown } | undefined)?.cancelFlags;
const mode = new URL(import.meta.url).searchParams.get('mode');
if (inPoolThread && mode === 'always') process.exit(7);
if (inPoolThread && mode === 'once' && !existsSync(firstLoadMarker())) {
  writeFileSync(firstLoadMarker(), 'loaded once');
  process.exit(7);
}

const noArgs = { type: 'object', additionalProperties: false } as const;

export const diesOnceAtLoad = defineTool({
  name: 'dies_once_at_load',
  description: 'Its module ends the thread the first time it loads in a pool thread.',
  inputSchema: noArgs,
  blocking: true,
  module: `${import.meta.url.split('?')[0]}?mode=once`,
  export: 'diesOnceAtLoad',
  handler: () => 'ran',
});

export const diesAtLoad = defineTool({
  name: 'dies_at_load',
  description: 'Its module ends the thread every time it loads in a pool thread.',
  inputSchema: noArgs,
  blocking: true,
  module: `${import.meta.url.split('?')[0]}?mode=always`,
  export: 'diesAtLoad',
  handler: () => 'ran',
});
