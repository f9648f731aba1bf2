/**
 * The `ctx` an inline handler receives, built for the hot path: one object per call, and the
 * costly parts made only when a handler asks for them. An AbortSignal is
 * created the first time `ctx.signal` is read (most handlers never read it), and the way to reach
 * the client the first time `ctx.elicit`, `ctx.sample` or `ctx.roots` is called.
 */
import type { Principal } from '../auth/principal.js';
import type { PromptsView } from '../prompts/prompts-view.js';
import type { ResourcesView } from '../resources/resources-view.js';
import { AnswerBook } from '../tools/client-questions.js';
import {
  type AskOptions,
  CallAbandonedError,
  clientRequestMethods,
  type ElicitParams,
  type ElicitResult,
  LOG_LEVELS,
  type LogLevel,
  type RootsResult,
  type SampleParams,
  type SampleResult,
  type ToolContext,
  type ToolsView,
} from '../tools/tool-context.js';
import { FORWARD_TO_POOL } from '../tools/transformed-tool.js';
import type { CallPeer, EngineCall } from './engine-call.js';
import { forwardToPool, type RunCall } from './forwarded-call.js';

export class InlineToolContext implements ToolContext {
  readonly deadline: number | undefined;
  readonly #call: EngineCall;
  /** How `forward` reaches the pool (a transformed tool over a blocking original). */
  readonly #run: RunCall | undefined;
  #controller: AbortController | undefined;
  #abandoned: CallAbandonedError | undefined;
  #lastProgress = Number.NEGATIVE_INFINITY;
  #clientRequests: ReturnType<typeof clientRequestMethods> | undefined;

  /** Present when the call runs in rounds (EngineCall.inputs): questions are answered from it. */
  readonly book: AnswerBook | undefined;

  constructor(call: EngineCall, run?: RunCall) {
    this.#call = call;
    this.#run = run;
    this.deadline = call.budgetMs > 0 ? Date.now() + call.budgetMs : undefined;
    this.book = call.inputs ? new AnswerBook(call.inputs.answers) : undefined;
  }

  get auth(): Principal | undefined {
    return this.#call.auth;
  }

  get inputResponses(): Readonly<Record<string, unknown>> {
    return this.#call.inputs?.answers ?? {};
  }

  get requestState(): unknown {
    return this.#call.inputs?.state;
  }

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#abandoned) this.#controller.abort(this.#abandoned);
    }
    return this.#controller.signal;
  }

  /** The outcome was decided as a timeout or a cancel: the handler's signal aborts, checkpoints throw. */
  abandon(reason: CallAbandonedError['reason']): void {
    if (this.#abandoned) return;
    this.#abandoned = new CallAbandonedError(reason);
    this.#controller?.abort(this.#abandoned);
  }

  // The methods are arrow fields, not prototype methods, so that a handler may destructure them
  // (`handler: (args, { checkpoint, progress }) => ...`) and call them unbound.

  checkpoint = (): void => {
    if (this.#abandoned) throw this.#abandoned;
  };

  progress = (progress: number, total?: number, message?: string): void => {
    const report = this.#call.events.progress;
    if (this.#abandoned || !report || !(progress > this.#lastProgress)) return;
    this.#lastProgress = progress;
    report(progress, total, message);
  };

  log = (level: LogLevel, data: unknown): void => {
    if (this.#abandoned || LOG_LEVELS.indexOf(level) < this.#call.events.minLogLevel) return;
    this.#call.events.log(level, data);
  };

  // async, so that a call with no client to ask rejects rather than throws.
  elicit = async (params: ElicitParams, options?: AskOptions): Promise<ElicitResult> =>
    this.#requests().elicit(params, options);

  sample = async (params: SampleParams, options?: AskOptions): Promise<SampleResult> =>
    this.#requests().sample(params, options);

  roots = async (options?: AskOptions): Promise<RootsResult> => this.#requests().roots(options);

  tools = (): ToolsView => this.#peer().tools(this.signal);

  resources = (): ResourcesView => this.#peer().resources();

  prompts = (): PromptsView => this.#peer().prompts();

  /** A transformed tool's `forward` to its pooled original (forwarded-call.ts). */
  [FORWARD_TO_POOL](args: Record<string, unknown>): Promise<unknown> {
    const tool = this.#call.tool.blocking ? undefined : this.#call.tool.forwardTo;
    if (tool === undefined || this.#run === undefined) {
      return Promise.reject(new Error(`Tool "${this.#call.tool.name}" has no pooled original to forward to`));
    }
    return forwardToPool(this.#run, this.#call, this, tool, args);
  }

  #requests(): ReturnType<typeof clientRequestMethods> {
    if (!this.#clientRequests) {
      const peer = this.#peer();
      const { book } = this;
      // Asked live, requests to the client are withdrawn with the call (notifications/cancelled).
      this.#clientRequests = clientRequestMethods(
        peer.clientCapabilities,
        book
          ? (method, params, options) => book.ask(method, params, options)
          : (method, params) => peer.request(method, params, this.signal),
      );
    }
    return this.#clientRequests;
  }

  #peer(): CallPeer {
    const { peer } = this.#call;
    if (!peer)
      throw new Error('This call was not made by a client, so there is no client or server to reach');
    return peer;
  }
}
