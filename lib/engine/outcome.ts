/**
 * The seven ways a tool call can end. Every executor returns exactly one of these, once; the router
 * alone decides what each looks like on the wire.
 */
import type { Question } from '../tools/client-questions.js';
import type { LimitExceeded } from './limit-exceeded.js';

export type Outcome =
  /** The handler returned; `value` is what it returned, not yet shaped into a CallToolResult. */
  | { kind: 'ok'; value: unknown }
  /** The handler threw or rejected; `message` is safe to show (no stack). */
  /** `missingCapability`: it failed for want of a client capability (MissingClientCapabilityError). */
  | { kind: 'tool-error'; message: string; missingCapability?: string }
  /**
   * The handler asked the client questions its answers did not cover (a call run with `inputs`):
   * this attempt is over, and the caller may ask them and run the call again with the answers.
   */
  | { kind: 'input-required'; questions: Question[] }
  /** The deadline passed first; `limitMs` is the deadline that applied. */
  | { kind: 'timeout'; limitMs: number }
  /** The client (or a shutdown) cancelled the call; nothing is sent for it. */
  | { kind: 'cancelled'; reason: 'cancelled' | 'shutdown' }
  /** The worker running the call died (exit, out of memory, crash); the server lives on. */
  /** `publicReason`: what stopped it, safe to show the client (default: the worker died). */
  | { kind: 'panicked'; detail: string; publicReason?: string }
  /** The bounded queue was full, or `limit`: the caller is over one of its limits; nothing ran. */
  | { kind: 'overloaded'; reason: string; limit?: LimitExceeded };

export type OutcomeKind = Outcome['kind'];
