/**
 * The mark a blocking call leaves on every process it starts, so that they can all be found and
 * killed with the call (process-tree.ts), wherever they went.
 *
 * A process's parent is a weak tie: a child that double-forks, detaches (`setsid`) or outlives its
 * parent is re-parented to init, and a walk down from the worker no longer reaches it. Its
 * environment, though, is inherited by everything it starts. So a call's worker (thread or process)
 * puts `WEFT_CALL=<server pid>.<call id>` in the environment of every process the handler spawns
 * (workers/call-children.ts), and the server reads /proc/<pid>/environ to find them. The server pid
 * prefix keeps two servers on one machine (or one server started by another's tool) apart, and lets
 * an exiting server find every call's leftovers at once.
 */

/** The environment variable that carries a call's mark. */
export const CALL_MARK_VARIABLE = 'WEFT_CALL';

/** Call ids unique in this process, shared by every executor, so marks never collide. */
let lastCallId = 0;

export function nextCallId(): number {
  return ++lastCallId;
}

/** The mark of call `callId` of the server running as process `serverPid`. */
export function callMark(serverPid: number, callId: number): string {
  return `${serverPid}.${callId}`;
}
