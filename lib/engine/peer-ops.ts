/**
 * `ctx.tools()`, `ctx.resources()` and `ctx.prompts()` for a handler that runs off the main thread.
 *
 * A pool thread or process holds no registry: each member it calls becomes a `PeerOp` message that
 * the main thread performs here, on the call's own `CallPeer` (so an inner `call` is cancelled with
 * its outer call, exactly as inline). Only data crosses: results are descriptors and CallToolResults,
 * errors are sent as their message (and JSON-RPC code), and a definition that holds a function (an
 * inline handler, a resource reader) is refused on the worker's side (workers/remote-views.ts).
 */
import type { CallPeer } from './engine-call.js';

/** Each namespace's members that a worker may call: the whole table, as inline. */
export const PEER_MEMBERS = {
  tools: ['list', 'find', 'findMany', 'call', 'callAll', 'add', 'remove'],
  resources: [
    'list',
    'templates',
    'find',
    'read',
    'isSubscribed',
    'add',
    'addTemplate',
    'remove',
    'notifyUpdated',
    'updated',
  ],
  prompts: ['list', 'find', 'get', 'add', 'remove'],
} as const;

export type PeerNamespace = keyof typeof PEER_MEMBERS;

export interface PeerOp {
  namespace: PeerNamespace;
  member: string;
  args: unknown[];
}

/** What the main thread answers to a worker's request (a question for the client, or a PeerOp). */
export type PeerReply = { ok: true; result: unknown } | { ok: false; message: string; code?: number };

/** How one `callAll` entry crosses back: an Error becomes its message (and code). */
export type SentCallOutcome =
  | { name: string; ok: true; result: unknown }
  | { name: string; ok: false; message: string; code?: number };

/**
 * Performs a worker's PeerOp. `signal` aborts when the calling call is over, which cancels the inner
 * calls it made.
 */
export async function performPeerOp(peer: CallPeer, signal: AbortSignal, op: PeerOp): Promise<unknown> {
  const members: readonly string[] | undefined = PEER_MEMBERS[op.namespace];
  if (!members?.includes(op.member)) {
    throw new Error(`ctx.${String(op.namespace)}().${String(op.member)} is not a member weft offers`);
  }
  const view =
    op.namespace === 'tools'
      ? peer.tools(signal)
      : op.namespace === 'resources'
        ? peer.resources()
        : peer.prompts();
  const member = (view as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[op.member]!;
  const result = await member.apply(view, op.args);
  if (op.namespace === 'tools' && op.member === 'callAll') {
    return (result as { name: string; ok: boolean; result?: unknown; error?: Error }[]).map(
      (outcome): SentCallOutcome =>
        outcome.ok
          ? { name: outcome.name, ok: true, result: outcome.result }
          : { name: outcome.name, ok: false, ...errorReply(outcome.error) },
    );
  }
  return result;
}

/** An error as it crosses to a worker: its message, and its JSON-RPC code when it has one. */
export function errorReply(error: unknown): { message: string; code?: number } {
  const message = error instanceof Error ? error.message || error.name : String(error);
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'number' ? { message, code } : { message };
}
