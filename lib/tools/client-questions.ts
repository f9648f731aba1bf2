/**
 * Questions a handler puts to the client (`ctx.elicit`, `ctx.sample`, `ctx.roots`), answered from a
 * book of answers given up front rather than by asking live.
 *
 * This is how one handler serves both ways of asking. Asked live, a question is a request sent to
 * the client and awaited. Asked in rounds, the handler runs once per round: every question it
 * already asked in an earlier round is answered at once from the book, in the order it asks them,
 * and the first question the book cannot answer is collected together with every other question
 * asked in the same turn of the event loop (so `Promise.all` of several goes out as one round);
 * then the attempt is over, and whoever runs the handler asks the client and runs it again.
 * The questions collected never settle: the handler's code past them does not run in this attempt.
 *
 * It lives with the tool contract because the same book is read on the event loop (inline tools,
 * prompts, resource readers), in a pool thread and in a pool process.
 */

/** The requests a handler may put to the client, with the capability each needs. */
export const QUESTION_METHODS = {
  'elicitation/create': { capability: 'elicitation', key: 'elicit' },
  'sampling/createMessage': { capability: 'sampling', key: 'sample' },
  'roots/list': { capability: 'roots', key: 'roots' },
} as const;

export type QuestionMethod = keyof typeof QUESTION_METHODS;

/** One question for the client: under `key` its answer comes back. */
export interface Question {
  key: string;
  method: QuestionMethod;
  params: Record<string, unknown>;
}

/** Options a handler may give one question. */
export interface AskOptions {
  /**
   * The name the question goes out under (an `inputRequests` key in the 2026-07-28 era). Default:
   * the method and the question's position, such as `elicit-1`. Give one when the same question may
   * come at a different position on a later round.
   */
  key?: string;
}

/**
 * Whether `answer` has the shape a client's answer to `method` must have. A malformed answer is
 * treated as no answer: the question is asked again.
 */
export function isAnswerOf(method: QuestionMethod, answer: unknown): boolean {
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) return false;
  const body = answer as Record<string, unknown>;
  switch (method) {
    case 'elicitation/create':
      return (
        (body.action === 'accept' || body.action === 'decline' || body.action === 'cancel') &&
        (body.content === undefined || (typeof body.content === 'object' && body.content !== null))
      );
    case 'sampling/createMessage':
      return (
        (body.role === 'assistant' || body.role === 'user') &&
        typeof body.content === 'object' &&
        body.content !== null
      );
    case 'roots/list':
      return Array.isArray(body.roots);
  }
}

/**
 * One attempt's book of answers. `ask` answers from the book or collects the question; `ended`
 * resolves with the collected questions once a turn has passed since the first one.
 */
export class AnswerBook {
  readonly #answers: Readonly<Record<string, unknown>>;
  readonly #asked: Question[] = [];
  #position = 0;
  #resolveEnded: ((questions: Question[]) => void) | undefined;
  /** Resolves with the round's questions; never, when the handler asks nothing the book lacks. */
  readonly ended: Promise<Question[]>;

  constructor(answers: Readonly<Record<string, unknown>>) {
    this.#answers = answers;
    this.ended = new Promise((resolve) => {
      this.#resolveEnded = resolve;
    });
  }

  /** Every answer the handler was given (`ctx.inputResponses`). */
  get answers(): Readonly<Record<string, unknown>> {
    return this.#answers;
  }

  ask(method: QuestionMethod, params: Record<string, unknown>, options?: AskOptions): Promise<unknown> {
    this.#position++;
    const key = options?.key ?? `${QUESTION_METHODS[method].key}-${this.#position}`;
    const answer = this.#answers[key];
    if (isAnswerOf(method, answer)) return Promise.resolve(answer);
    if (this.#asked.some((question) => question.key === key)) {
      throw new Error(`Two questions in one round share the key "${key}"; give each its own key`);
    }
    this.#asked.push({ key, method, params });
    if (this.#asked.length === 1) {
      setImmediate(() => this.#resolveEnded?.(this.#asked));
    }
    return new Promise<never>(() => {});
  }
}

/** What a handler's run came to when it was raced against its book: a value, or a round of questions. */
export class QuestionsAsked {
  constructor(readonly questions: Question[]) {}
}

/** `work`, or the round of questions its handler asked, whichever comes first; `work` alone without a book. */
export function untilQuestions<T>(
  work: Promise<T>,
  book: AnswerBook | undefined,
): Promise<T | QuestionsAsked> {
  if (book === undefined) return work;
  return Promise.race([work, book.ended.then((questions) => new QuestionsAsked(questions))]);
}

/** The key that marks a handler's explicit `inputRequired(...)` return (a plain object, so it crosses threads). */
const INPUT_REQUIRED = 'weft/inputRequired';

/** What `inputRequired(...)` returns: the handler's own round of questions and the state it carries. */
export interface InputRequiredReturn {
  readonly [INPUT_REQUIRED]: true;
  readonly requests: Readonly<Record<string, { method: QuestionMethod; params?: Record<string, unknown> }>>;
  readonly state?: unknown;
}

/**
 * The explicit form: a handler that wants to control its rounds returns this. The client is asked
 * `requests` (keyed as the handler likes); on the retry the handler runs again with
 * `ctx.inputResponses` holding the answers and `ctx.requestState` the `state` given here, sealed by
 * the server in between so the client can neither read nor change it. `state` must be JSON data.
 */
export function inputRequired(
  requests: InputRequiredReturn['requests'],
  state?: unknown,
): InputRequiredReturn {
  return state === undefined
    ? { [INPUT_REQUIRED]: true, requests }
    : { [INPUT_REQUIRED]: true, requests, state };
}

export function isInputRequiredReturn(value: unknown): value is InputRequiredReturn {
  return (
    typeof value === 'object' && value !== null && (value as Record<string, unknown>)[INPUT_REQUIRED] === true
  );
}

/** The questions of an explicit return, checked: every method one a handler may ask. */
export function questionsOf(value: InputRequiredReturn): Question[] {
  return Object.entries(value.requests).map(([key, request]) => {
    if (!(request?.method in QUESTION_METHODS)) {
      throw new TypeError(
        `inputRequired: request "${key}" has method ${JSON.stringify(request?.method)}; use one of ${Object.keys(QUESTION_METHODS).join(', ')}`,
      );
    }
    return { key, method: request.method, params: request.params ?? {} };
  });
}
