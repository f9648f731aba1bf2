/**
 * `tools/list` and `tools/call`: the registry and the engine, seen through MCP.
 *
 * Listing is name-ordered and cursor-paginated. A call is looked up, its arguments are checked
 * against the schema compiled at registration, it runs on the engine, and its outcome is mapped to
 * the wire: results and tool errors as CallToolResults, a cancelled call as no response at all, a
 * dead worker as -32603 (details in the server log), a full queue as an immediate "overloaded".
 * A successful result is checked and encoded here, once: one that is not a valid CallToolResult or
 * cannot be sent as JSON becomes an `isError` result under the same id, never a lost call.
 * A handler's questions to the client take rounds in a modern request (mrtr-rounds.ts).
 */

import { budgetLeftMs, effectiveBudgetMs } from '../engine/deadline.js';
import type { Engine } from '../engine/engine.js';
import type { CallEvents, CallPeer } from '../engine/engine-call.js';
import type { Outcome } from '../engine/outcome.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { notification } from '../protocol/json-rpc.js';
import { EncodedResult, jsonLength } from '../protocol/message-encoding.js';
import { ProtocolError } from '../protocol/protocol-error.js';
import { isInputRequiredReturn } from '../tools/client-questions.js';
import type { CallToolResult } from '../tools/content.js';
import type { RegisteredTool } from '../tools/registered-tool.js';
import { encodeToolResult } from '../tools/result-encoding.js';
import {
  invalidArguments,
  panicMessage,
  shapeSuccess,
  timeoutResult,
  tooLarge,
  toolFailure,
  unsendable,
} from '../tools/result-shaping.js';
import type { Checked } from '../tools/standard-schema-check.js';
import type { ToolRegistry } from '../tools/tool-registry.js';
import type { CallerKeys } from './caller-keys.js';
import { decodeCursor, encodeCursor, firstAfter } from './cursor.js';
import { runExactCall } from './exact-calls.js';
import { overloadedError } from './limit-errors.js';
import { type MethodContext, NO_RESPONSE } from './method-table.js';
import { askLive, type MrtrRounds, missingCapabilityError } from './mrtr-rounds.js';
import type { Router } from './router.js';
import { requireScopes, visibleEntries } from './scope-check.js';
import { taskModeOf } from './task-methods.js';
import type { TaskRunner } from './task-runner.js';
import { CreatedTaskAnswer, legacyTask, modernTask } from './task-wire.js';

export interface ToolMethodOptions {
  registry: ToolRegistry;
  engine: Engine;
  /** The server-wide deadline (0 = none); tools may only tighten it. */
  timeoutMs: number;
  /** Largest result, as the JSON text that is sent; a larger one becomes a tool error. 0 = no cap. */
  maxResultBytes: number;
  pageSize: number;
  /** True once the server has begun to shut down: new calls are refused. */
  isClosing: () => boolean;
  /** Builds what a call's handler may reach beyond it (client requests, the server's registries). */
  peer?: (ctx: MethodContext) => CallPeer;
  /** Multi-round requests: how a handler's questions become rounds (absent: questions go live). */
  rounds?: MrtrRounds;
  /** Runs calls of tools with a `task` option as tasks, when the request asks for one (absent: never). */
  tasks?: TaskRunner;
  /** List tools whose scopes a caller lacks too (default false: a caller sees what it may call). */
  listOutOfScope?: boolean;
  /** Whom each call is for, for fair admission and per-caller limits (absent: one anonymous caller). */
  callers?: CallerKeys;
}

export function addToolMethods(router: Router, options: ToolMethodOptions): void {
  const { registry, engine, pageSize } = options;

  const listOutOfScope = options.listOutOfScope ?? false;

  router.method('tools/list', ({ params, scope }) => {
    const sorted = visibleEntries(registry.sorted(), scope, listOutOfScope);
    const start = params.cursor === undefined ? 0 : firstAfter(sorted, decodeCursor(params.cursor));
    const page = sorted.slice(start, start + pageSize);
    const result: { tools: object[]; nextCursor?: string } = { tools: page.map((tool) => tool.descriptor) };
    if (start + pageSize < sorted.length && page.length > 0)
      result.nextCursor = encodeCursor(page[page.length - 1]!.name);
    return result;
  });

  router.method('tools/call', (ctx) => {
    const { params } = ctx;
    if (typeof params.name !== 'string') {
      throw ProtocolError.invalidParams('tools/call needs params.name, the name of a tool from tools/list');
    }
    const tool = registry.get(params.name);
    if (!tool) throw ProtocolError.invalidParams(`Unknown tool: ${params.name}`);
    requireScopes(ctx.scope, tool.scopes, `tool "${tool.name}"`);
    if (options.isClosing()) {
      throw new ProtocolError(ErrorCode.ShuttingDown, 'The server is shutting down and takes no new calls');
    }
    if (tool.blocking === false && tool.exact) return runExactCall(ctx, tool.exact, options.timeoutMs);
    const args = params.arguments ?? {};
    if (typeof args !== 'object' || args === null || Array.isArray(args)) {
      return invalidArguments(tool, 'arguments must be a JSON object');
    }
    const checked = tool.checkArguments(args);
    // Only a schema with async refinements answers later; every other call stays synchronous here.
    return checked instanceof Promise
      ? checked.then((c) => afterCheck(ctx, tool, c))
      : afterCheck(ctx, tool, checked);
  });

  /** The call with the arguments its schema handed back (a Standard Schema's output), or its refusal. */
  function afterCheck(ctx: MethodContext, tool: RegisteredTool, checked: Checked) {
    if (!checked.ok) return invalidArguments(tool, checked.problem);
    const args = checked.value as Record<string, unknown>;
    if (options.tasks && taskModeOf(ctx, tool)) return startTask(ctx, tool, args, options.tasks);
    return runCall(ctx, tool, args);
  }

  /**
   * A call that becomes a task: multi-round input first (the tool's `beforeTask`, in this
   * request), then the task is stored and the answer is the task, before any work has run.
   */
  async function startTask(
    ctx: MethodContext,
    tool: RegisteredTool,
    args: Record<string, unknown>,
    tasks: TaskRunner,
  ) {
    const round = options.rounds?.begin(ctx, 'tools/call', tool.name, args);
    let inputs: { answers: Record<string, unknown>; state?: unknown } = round?.inputs ?? { answers: {} };
    if (tool.beforeTask) {
      const cancellation = ctx.session.begin(ctx.request.id);
      try {
        for (let live = 0; ; live++) {
          let value: unknown;
          try {
            value = await tool.beforeTask(args, {
              inputResponses: inputs.answers,
              requestState: inputs.state,
              auth: ctx.scope.principal,
            });
          } catch (error) {
            return toolFailure(tool, (error as Error)?.message ?? String(error));
          }
          if (!isInputRequiredReturn(value)) break;
          if (round) return round.askExplicit(value);
          try {
            const answers = await askLive(ctx, value, inputs.answers, cancellation.signal, live);
            inputs = { answers, state: value.state };
          } catch (error) {
            if (cancellation.cancelled) return NO_RESPONSE;
            return toolFailure(tool, (error as Error)?.message ?? String(error));
          }
        }
      } finally {
        ctx.session.end(ctx.request.id);
      }
    }
    const record = await tasks.start(ctx, tool, args, inputs);
    return ctx.scope.era === 'modern'
      ? new CreatedTaskAnswer(modernTask(record))
      : { task: legacyTask(record) };
  }

  async function runCall(ctx: MethodContext, tool: RegisteredTool, args: Record<string, unknown>) {
    const { session, request } = ctx;
    // A modern retry's answers and state are checked before anything runs (-32602 when bad).
    const round = options.rounds?.begin(ctx, 'tools/call', tool.name, args);
    const cancellation = session.begin(request.id);
    try {
      const budgetMs = effectiveBudgetMs(options.timeoutMs, tool.timeoutMs);
      const peer = options.peer ? { peer: options.peer(ctx) } : {};
      const caller = options.callers ? { caller: options.callers.callerOf(ctx, tool, args) } : {};
      let inputs = round?.inputs;
      // Each attempt has the whole deadline: a round ends an attempt, the retry is a new call. The
      // first counts from the request's arrival: what ran before it (the first call compiling its
      // schema, a middleware) is within the deadline, so the answer comes at the deadline.
      for (let live = 0; ; live++) {
        const outcome = await engine.run({
          tool,
          args,
          budgetMs:
            live === 0 && ctx.arrivedAt !== undefined ? budgetLeftMs(budgetMs, ctx.arrivedAt) : budgetMs,
          cancellation,
          events: callEvents(ctx, tool),
          auth: ctx.scope.principal,
          ...(ctx.trace ? { trace: ctx.trace } : {}),
          ...peer,
          ...caller,
          ...(inputs ? { inputs } : {}),
        });
        if (outcome.kind === 'input-required' && round) return round.ask(outcome.questions);
        if (outcome.kind === 'ok' && isInputRequiredReturn(outcome.value)) {
          if (round) return round.askExplicit(outcome.value);
          // Legacy: the client is asked live, then the handler runs again with the answers.
          try {
            const answers = await askLive(
              ctx,
              outcome.value,
              inputs?.answers ?? {},
              cancellation.signal,
              live,
            );
            inputs = { answers, state: outcome.value.state };
          } catch (error) {
            if (cancellation.reason !== undefined)
              return toWire(tool, { kind: 'cancelled', reason: cancellation.reason }, options.maxResultBytes);
            return toolFailure(tool, (error as Error)?.message ?? String(error));
          }
          continue;
        }
        if (outcome.kind === 'tool-error' && outcome.missingCapability !== undefined && round) {
          throw missingCapabilityError(outcome.missingCapability, outcome.message);
        }
        // The timeout names the tool's deadline, not the part of it that was left at the start.
        return toWire(
          tool,
          outcome.kind === 'timeout' ? { kind: 'timeout', limitMs: budgetMs } : outcome,
          options.maxResultBytes,
        );
      }
    } finally {
      session.end(request.id);
    }
  }
}

function callEvents({ scope, params, sink }: MethodContext, tool: RegisteredTool): CallEvents {
  const token = (params._meta as { progressToken?: unknown } | undefined)?.progressToken;
  const events: CallEvents = {
    minLogLevel: scope.minLogLevel,
    log: (level, data) =>
      sink.send(notification('notifications/message', { level, logger: tool.name, data })),
  };
  if (typeof token === 'string' || typeof token === 'number') {
    events.progress = (progress, total, message) => {
      const body: Record<string, unknown> = { progressToken: token, progress };
      if (total !== undefined) body.total = total;
      if (message !== undefined) body.message = message;
      sink.send(notification('notifications/progress', body));
    };
  }
  return events;
}

function toWire(tool: RegisteredTool, outcome: Outcome, maxResultBytes: number): unknown {
  switch (outcome.kind) {
    case 'ok':
      return sendableSuccess(tool, outcome.value, maxResultBytes);
    case 'tool-error':
      return toolFailure(tool, outcome.message);
    case 'timeout':
      return timeoutResult(tool, outcome.limitMs);
    case 'cancelled':
      // The client that cancelled expects nothing; a client whose call the server gave up on at
      // shutdown is still waiting, and is told why.
      if (outcome.reason === 'cancelled') return NO_RESPONSE;
      throw new ProtocolError(
        ErrorCode.ShuttingDown,
        `The server shut down before tool "${tool.name}" finished; retry once it is back`,
      );
    case 'panicked':
      throw new ProtocolError(ErrorCode.InternalError, panicMessage(tool.name, outcome.publicReason));
    case 'overloaded':
      throw overloadedError(outcome);
    case 'input-required':
      // Only a call run with inputs asks in rounds, and only a modern request runs one that way.
      throw new Error(`Tool "${tool.name}" asked for input in a request that cannot take rounds`);
  }
}

/**
 * The handler's value as a checked CallToolResult with its JSON text, so the router sends it without
 * encoding it again, and the size cap is measured on that same text (no second stringify). Reading
 * the value may run tool code (getters, `toJSON`, a Proxy), which may throw: that too is the tool's
 * failure, answered as one.
 */
function sendableSuccess(
  tool: RegisteredTool,
  value: unknown,
  maxResultBytes: number,
): EncodedResult | CallToolResult {
  let result: CallToolResult;
  try {
    result = shapeSuccess(tool, value);
  } catch (error) {
    return unsendable(tool, `reading it threw: ${thrownMessage(error)}`);
  }
  const json = encodeToolResult(result);
  if (!json.ok) return unsendable(tool, json.problem);
  // UTF-16 code units: a close, cheap bound on the bytes (exact for ASCII, which JSON mostly is).
  if (maxResultBytes > 0) {
    const length = jsonLength(json);
    if (length > maxResultBytes) return tooLarge(tool, length, maxResultBytes);
  }
  return new EncodedResult(result, json);
}

/** What a throw says, even when the thrown value is itself hostile (a throwing toString). */
function thrownMessage(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return 'a value that cannot be described';
  }
}
