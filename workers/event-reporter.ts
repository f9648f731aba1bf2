/**
 * `ctx.progress` and `ctx.log` for handlers that run off the main thread, in a pool thread or a
 * pool process alike: only what the client asked for is sent, progress only when it increases,
 * and at most one progress message per PROGRESS_INTERVAL_MS (the last step always goes out), so a
 * handler may report from its inner loop without flooding the server.
 */
import type { CallEvent } from '../lib/engine/worker-protocol.js';
import type { LogLevel } from '../lib/tools/tool-context.js';
import { LOG_LEVELS } from '../lib/tools/tool-context.js';

const PROGRESS_INTERVAL_MS = 20;

export interface ReportingTask {
  callId: number;
  wantsProgress: boolean;
  minLogLevel: number;
}

export function createEventReporter(
  task: ReportingTask,
  post: (event: CallEvent) => void,
): {
  progress(progress: number, total?: number, message?: string): void;
  log(level: LogLevel, data: unknown): void;
} {
  const { callId } = task;
  let lastProgress = Number.NEGATIVE_INFINITY;
  let lastSentAt = 0;
  return {
    progress(progress, total, message) {
      if (!task.wantsProgress || !(progress > lastProgress)) return;
      const now = Date.now();
      const final = total !== undefined && progress >= total;
      if (!final && now - lastSentAt < PROGRESS_INTERVAL_MS) return;
      lastProgress = progress;
      lastSentAt = now;
      const event: CallEvent = { weft: 'progress', callId, progress };
      if (total !== undefined) event.total = total;
      if (message !== undefined) event.message = message;
      post(event);
    },
    log(level, data) {
      if (LOG_LEVELS.indexOf(level) < task.minLogLevel) return;
      post({ weft: 'log', callId, level, data });
    },
  };
}
