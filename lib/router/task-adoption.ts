/**
 * Adopting a task whose replica stopped while its work ran on the fleet (the store offers it once
 * its lease lapsed, or at once when that replica handed it over at a graceful stop): the fleet job
 * named in the record is followed to its end here and the outcome stored, as the task's own replica
 * would have. What needed that replica (a question to a legacy session, another round) ends the task
 * failed, saying why; this replica stopping in turn hands it over again.
 */
import { Cancellation } from '../engine/cancellation.js';
import type { Engine } from '../engine/engine.js';
import type { CallEvents } from '../engine/engine-call.js';
import type { TaskChange, TaskRecord } from '../tasks/task-record.js';
import type { TaskStore } from '../tasks/task-store.js';
import type { RegisteredTool } from '../tools/registered-tool.js';
import type { WakeableTask } from './task-input.js';
import { adoptedChange, shutDown } from './task-outcomes.js';

export interface AdoptionDeps {
  readonly store: TaskStore;
  readonly engine: Engine;
  readonly events: CallEvents;
  readonly logError: (message: string) => void;
  readonly toolNamed: ((name: string) => RegisteredTool | undefined) | undefined;
  /** The runner's table of tasks running here (signals find them there). */
  readonly running: Map<string, WakeableTask>;
  readonly write: (record: TaskRecord, change: TaskChange) => Promise<unknown>;
}

/** True when this replica took `record` over; false leaves it to be failed as lost. */
export function adoptTask(deps: AdoptionDeps, record: TaskRecord): boolean {
  const { store, engine, logError, running } = deps;
  const tool = deps.toolNamed?.(record.tool);
  if (!tool?.blocking || record.fleetJob === undefined) return false;
  const task: WakeableTask = { cancellation: new Cancellation(), wake: undefined };
  running.set(record.taskId, task);
  logError(
    `weft: task ${record.taskId} (${tool.name}): its replica stopped; following fleet job ${record.fleetJob} here`,
  );
  let handedOver = false;
  engine
    .follow(record.fleetJob, {
      tool,
      cancellation: task.cancellation,
      events: deps.events,
      onFleetJob: (fleetJob) => void store.update(record.taskId, { fleetJob }).catch(() => {}),
      keepOnShutdown: store.handOver !== undefined,
    })
    .then((outcome) => {
      if (task.cancellation.reason === 'shutdown' && store.handOver) {
        handedOver = true;
        store.handOver(record.taskId);
        return;
      }
      // A client's cancel has already written `cancelled`; a shutdown has not.
      if (task.cancellation.reason === 'shutdown') return deps.write(record, shutDown(tool));
      return deps.write(record, adoptedChange(record, tool, outcome));
    })
    .catch((error) => logError(`weft: adopted task ${record.taskId} failed: ${(error as Error)?.stack}`))
    .finally(() => {
      running.delete(record.taskId);
      if (!handedOver) store.release(record.taskId);
    });
  return true;
}
