/**
 * One call on the fleet as its replica follows it, across the jobs that carry it (a retry after a
 * worker died, or a new round after the client answered, is a new job): its decision, the events
 * that reached it, and the answers gathered between rounds.
 *
 * Kept apart from the executor because these are the parts that concern one call only: how a
 * result waits for the events published before it (they travel another connection), and how a
 * call without a book of answers has its questions asked between attempts, so that no worker
 * thread is held while the client thinks.
 */
import type { Question } from '../tools/client-questions.js';
import type { RegisteredBlockingTool } from '../tools/registered-tool.js';
import type { Release } from './admission.js';
import type { EngineCall } from './engine-call.js';
import type { FleetEvent } from './fleet-protocol.js';
import type { Outcome } from './outcome.js';
import type { CallDecision } from './pooled-call.js';

/** How long a result waits for events published before it; a safety net, not a delay. */
const EVENT_CATCH_UP_MS = 200;
/** Rounds of questions a live-asked call may go through before it is ended. */
const MAX_ROUNDS = 64;

export type FleetToolCall = EngineCall & { tool: RegisteredBlockingTool };

export interface FleetCall {
  readonly call: FleetToolCall;
  readonly decision: CallDecision;
  readonly release: Release;
  /** Local time of admission: the budget counts from here. */
  readonly startedAt: number;
  /** The job carrying the call now ('' before the first is added). */
  jobId: string;
  /** When the current job was added (local time). */
  sentAt: number;
  retries: number;
  rounds: number;
  /** Answers gathered by asking the client between attempts (calls that came without `inputs`). */
  answers: Record<string, unknown> | undefined;
  /** Aborts when the call's outcome is decided: questions put to the client are withdrawn. */
  over: AbortController | undefined;
  /** Events of the current job delivered so far. */
  received: number;
  /** Set while a result waits for events still on their way. */
  caughtUp: (() => void) | undefined;
  expected: number;
  /** The current job was seen finished while no outcome had come (fleet-executor's check). */
  finishedUnheard: boolean;
}

export function newFleetCall(
  call: FleetToolCall,
  decision: CallDecision,
  release: Release,
  startedAt: number,
): FleetCall {
  return {
    call,
    decision,
    release,
    startedAt,
    jobId: '',
    sentAt: 0,
    retries: 0,
    rounds: 0,
    // With a client to ask and no book of answers (the legacy era), questions are asked here.
    answers: call.inputs === undefined && call.peer !== undefined ? {} : undefined,
    over: undefined,
    received: 0,
    caughtUp: undefined,
    expected: 0,
    finishedUnheard: false,
  };
}

/** Hands an event to the call's client; a result waiting for it may now be decided. */
export function deliverFleetEvent(fc: FleetCall, event: FleetEvent): void {
  const { events } = fc.call;
  if (event.kind === 'progress') events.progress?.(event.progress, event.total, event.message);
  else events.log(event.level, event.data);
  fc.received++;
  if (fc.caughtUp && fc.received >= fc.expected) fc.caughtUp();
}

/** Decides `outcome` once the `events` the worker published before it have arrived (or soon anyway). */
export function decideAfterEvents(fc: FleetCall, outcome: Outcome, events: number): void {
  const finish = () => fc.decision.decide(outcome);
  if (fc.received >= events) {
    finish();
    return;
  }
  const timer = setTimeout(finish, EVENT_CATCH_UP_MS);
  fc.expected = events;
  fc.caughtUp = () => {
    clearTimeout(timer);
    finish();
  };
}

/**
 * Asks the client what the handler asked and adds the answers to the call's book; resolves true
 * when the call should run again with them, false when it was decided (no answer, too many rounds).
 */
export async function askBetweenAttempts(fc: FleetCall, questions: Question[]): Promise<boolean> {
  const { peer, tool } = fc.call;
  if (++fc.rounds > MAX_ROUNDS) {
    fc.decision.decide({
      kind: 'tool-error',
      message: `Tool "${tool.name}" asked for input ${MAX_ROUNDS} times in a row; it should finish`,
    });
    return false;
  }
  fc.over ??= new AbortController();
  const { signal } = fc.over;
  try {
    const replies = await Promise.all(questions.map((q) => peer!.request(q.method, q.params, signal)));
    questions.forEach((question, index) => {
      fc.answers![question.key] = replies[index];
    });
  } catch (error) {
    if (!fc.decision.decided) {
      fc.decision.decide({
        kind: 'tool-error',
        message: `The client did not answer tool "${tool.name}"'s question: ${(error as Error)?.message ?? String(error)}`,
      });
    }
    return false;
  }
  return !fc.decision.decided;
}
