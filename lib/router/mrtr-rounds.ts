/**
 * Multi-round-trip requests (MRTR) on the wire: what a handler's questions to the client become in
 * each era, for `tools/call`, `prompts/get` and `resources/read` alike.
 *
 * A 2026-07-28 request cannot be answered by a request from the server, so its handler runs in
 * rounds: the engine (or the prompt or resource runner) ends an attempt when the handler asks a
 * question its answers lack, and this module turns that into an `input_required` result carrying
 * the questions and a sealed `requestState` (request-state.ts). The retry comes back with
 * `inputResponses`; this module checks them, opens the state and hands the handler every answer so
 * far. A state is sealed to the caller's principal: another caller bringing it is refused
 * (-32602, `data.requestState: "mismatch"`) before the handler runs. A legacy session has server-to-client requests, so there the handler's questions go to the
 * client live, and an explicit `inputRequired(...)` return is answered the same way before the
 * handler runs again: one handler serves both eras.
 */
import { type Principal, principalKey } from '../auth/principal.js';
import type { CallTrace } from '../engine/call-observer.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { ProtocolError } from '../protocol/protocol-error.js';
import {
  AnswerBook,
  type InputRequiredReturn,
  QUESTION_METHODS,
  type Question,
  QuestionsAsked,
  questionsOf,
  untilQuestions,
} from '../tools/client-questions.js';
import {
  type ClientAsking,
  clientRequestMethods,
  MissingClientCapabilityError,
} from '../tools/tool-context.js';
import type { MethodContext } from './method-table.js';
import { newMrtrChain, noteMrtrChain } from './mrtr-chain.js';
import { argumentsDigest, type Origin, type RequestStateSeal, type RoundState } from './request-state.js';

/** An `input_required` answer; ModernAnswers dresses it (resultType, serverInfo, no cache hints). */
export class InputRequiredAnswer {
  constructor(
    readonly inputRequests: Record<string, { method: string; params: Record<string, unknown> }>,
    readonly requestState: string,
  ) {}
}

/** How many times a legacy request answers a handler's explicit rounds before it gives up. */
const MAX_LIVE_ROUNDS = 32;

/** -32021: the request needs a capability its client did not declare. */
export function missingCapabilityError(capability: string, message?: string): ProtocolError {
  return new ProtocolError(
    ErrorCode.MissingRequiredClientCapability,
    message ??
      `This request needs the client capability "${capability}", which its clientCapabilities does not declare`,
    { requiredCapabilities: { [capability]: {} } },
  );
}

/** One modern request's round: the answers it brought, and how to ask the next questions. */
export class Round {
  readonly #seal: RequestStateSeal;
  readonly #origin: Origin;
  readonly #capabilities: Record<string, unknown>;
  /** Every answer so far (earlier rounds and this retry). */
  readonly answers: Record<string, unknown>;
  /** The handler's own state from the previous round (explicit form), verified. */
  readonly state: unknown;
  /** The chain id from the opened state; undefined in a first round until it asks. */
  #chain: string | undefined;
  readonly #trace: CallTrace | undefined;

  constructor(
    seal: RequestStateSeal,
    origin: Origin,
    capabilities: Record<string, unknown>,
    answers: Record<string, unknown>,
    state: unknown,
    chain: string | undefined,
    trace: CallTrace | undefined,
  ) {
    this.#seal = seal;
    this.#origin = origin;
    this.#capabilities = capabilities;
    this.answers = answers;
    this.state = state;
    this.#chain = chain;
    this.#trace = trace;
    if (chain !== undefined) noteMrtrChain(trace, chain);
  }

  /** What the engine gets: the answers, and the handler's own state if it has one. */
  get inputs(): { answers: Record<string, unknown>; state?: unknown } {
    return this.state === undefined
      ? { answers: this.answers }
      : { answers: this.answers, state: this.state };
  }

  /**
   * The `input_required` answer for `questions`. A question for a capability the client did not
   * declare is never sent: the request fails with -32021 instead.
   */
  ask(questions: Question[], state?: unknown): InputRequiredAnswer {
    for (const question of questions) {
      const { capability } = QUESTION_METHODS[question.method];
      if (this.#capabilities[capability] === undefined) throw missingCapabilityError(capability);
    }
    const inputRequests: InputRequiredAnswer['inputRequests'] = {};
    for (const { key, method, params } of questions) inputRequests[key] = { method, params };
    // A first round that asks starts the chain; later rounds carry on the one they brought.
    if (this.#chain === undefined) {
      this.#chain = newMrtrChain();
      noteMrtrChain(this.#trace, this.#chain);
    }
    const next: RoundState = {
      ...this.#origin,
      chain: this.#chain,
      answers: this.answers,
      asked: questions.map((question) => question.key),
      ...(state === undefined ? {} : { state }),
    };
    return new InputRequiredAnswer(inputRequests, this.#seal.seal(next));
  }

  /** The answer for a handler's explicit `inputRequired(...)` return. */
  askExplicit(value: InputRequiredReturn): InputRequiredAnswer {
    return this.ask(explicitQuestions(value), value.state);
  }
}

function explicitQuestions(value: InputRequiredReturn): Question[] {
  try {
    return questionsOf(value);
  } catch (error) {
    // The handler's mistake, not the client's: the server log gets it as an internal error.
    throw new Error((error as Error).message);
  }
}

export class MrtrRounds {
  readonly #seal: RequestStateSeal;

  constructor(seal: RequestStateSeal) {
    this.#seal = seal;
  }

  /**
   * The round a request is in: undefined in a legacy session (questions go to the client live),
   * otherwise its checked answers and opened state. Malformed `inputResponses` and a state that is
   * tampered, expired or issued for another request are refused with -32602.
   */
  begin(ctx: MethodContext, method: string, target: string, args: unknown): Round | undefined {
    if (ctx.scope.era !== 'modern') return undefined;
    const { params } = ctx;
    const responses = readInputResponses(params.inputResponses);
    const origin = originOf(method, target, args, ctx.scope.principal);
    let answers: Record<string, unknown>;
    let state: unknown;
    let chain: string | undefined;
    if (params.requestState === undefined) {
      // A first round, or a client that kept no state: its answers stand alone.
      answers = { ...responses };
    } else {
      const opened = this.#seal.open(params.requestState, origin);
      answers = { ...opened.answers };
      // Only answers to what the last round asked are taken; unknown extra keys are ignored.
      for (const key of opened.asked) if (key in responses) answers[key] = responses[key];
      state = opened.state;
      chain = opened.chain;
    }
    return new Round(this.#seal, origin, ctx.scope.clientCapabilities, answers, state, chain, ctx.trace);
  }
}

/**
 * What a round's state is bound to. The arguments' digest is worked out only when a state is sealed
 * or opened: most requests never ask the client anything, and a SHA-256 of every request's
 * arguments showed in the profiles of the modern HTTP echo.
 */
function originOf(method: string, target: string, args: unknown, principal: Principal | undefined): Origin {
  let digest: string | undefined;
  return {
    method,
    target,
    // Like the digest, worked out only when a state is sealed or opened.
    get principal() {
      return principal === undefined ? undefined : principalKey(principal);
    },
    get digest() {
      digest ??= argumentsDigest(args ?? {});
      return digest;
    },
  };
}

function readInputResponses(value: unknown): Record<string, unknown> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw ProtocolError.invalidParams(
      'inputResponses must be an object keyed by the inputRequests keys of the input_required result',
    );
  }
  for (const [key, answer] of Object.entries(value)) {
    if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) {
      throw ProtocolError.invalidParams(
        `inputResponses["${key}"] must be the client's result object (an ElicitResult, CreateMessageResult ` +
          `or ListRootsResult), not ${answer === null ? 'null' : Array.isArray(answer) ? 'an array' : typeof answer}`,
      );
    }
  }
  return value as Record<string, unknown>;
}

/**
 * Legacy: asks the client an explicit return's questions live (all at once) and resolves with the
 * answers added to `earlier`. A question for an undeclared capability fails like ctx.elicit would.
 */
export async function askLive(
  ctx: MethodContext,
  value: InputRequiredReturn,
  earlier: Record<string, unknown>,
  signal: AbortSignal,
  round: number,
): Promise<Record<string, unknown>> {
  if (round >= MAX_LIVE_ROUNDS) {
    throw new Error(`The handler asked for input ${MAX_LIVE_ROUNDS} rounds in a row; it should finish`);
  }
  const questions = explicitQuestions(value);
  for (const { method } of questions) {
    const { capability } = QUESTION_METHODS[method];
    if (ctx.scope.clientCapabilities[capability] === undefined) {
      throw new MissingClientCapabilityError(capability, `ask the client for ${method}`);
    }
  }
  const answers = await Promise.all(
    questions.map(({ method, params }) => ctx.session.request(method, params, signal, ctx.sink)),
  );
  const all = { ...earlier };
  questions.forEach(({ key }, index) => {
    all[key] = answers[index];
  });
  return all;
}

/** How ctx.elicit / ctx.sample / ctx.roots ask in this request: from the round's book, or live. */
export function askerFor(
  ctx: MethodContext,
  book: AnswerBook | undefined,
  signal: AbortSignal,
): (
  method: Question['method'],
  params: Record<string, unknown>,
  options?: { key?: string },
) => Promise<unknown> {
  if (book) return (method, params, options) => book.ask(method, params, options);
  return (method, params) => ctx.session.request(method, params, signal, ctx.sink);
}

/**
 * Runs a prompt's `get` or a resource reader's `read` with a ctx that may ask the client: in a
 * modern request in rounds (the round ends with an input_required answer), in a legacy session
 * live. A missing capability that the handler lets through is -32021 in a modern request, and an
 * invalid request in a legacy one (which has no such code).
 */
export async function runAsking<T>(
  ctx: MethodContext,
  round: Round | undefined,
  signal: AbortSignal,
  run: (asking: ClientAsking) => Promise<T>,
): Promise<T | InputRequiredAnswer> {
  const book = round ? new AnswerBook(round.answers) : undefined;
  const asking: ClientAsking = {
    ...clientRequestMethods(ctx.scope.clientCapabilities, askerFor(ctx, book, signal)),
    inputResponses: round?.answers ?? {},
    requestState: round?.state,
    auth: ctx.scope.principal,
  };
  let value: T | QuestionsAsked;
  try {
    value = await untilQuestions(run(asking), book);
  } catch (error) {
    if (!(error instanceof MissingClientCapabilityError)) throw error;
    if (round) throw missingCapabilityError(error.capability, error.message);
    throw ProtocolError.invalidRequest(error.message);
  }
  if (value instanceof QuestionsAsked) return round!.ask(value.questions);
  return value;
}
