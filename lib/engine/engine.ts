/**
 * The engine: one entry point that runs a call on the right executor and returns its Outcome.
 *
 * Inline and blocking tools share one admission control, so `concurrency` and the bounded queue
 * mean the same thing for both.
 */
import type { RegisteredBlockingTool, RegisteredInlineTool } from '../tools/registered-tool.js';
import { Admission } from './admission.js';
import type { EngineCall } from './engine-call.js';
import { InlineExecutor } from './inline-executor.js';
import type { Outcome } from './outcome.js';
import { PoolExecutor } from './pool-executor.js';

export interface EngineOptions {
  /** Worker threads for blocking tools (default: the machine's available parallelism). */
  maxThreads: number;
  /** Calls that may wait for a slot before new ones are refused as overloaded. */
  maxQueue: number;
  /** How long a cooperative blocking handler gets to stop before its thread is terminated. */
  graceMs: number;
  logError: (message: string) => void;
}

export class Engine {
  readonly #admission: Admission;
  readonly #inline: InlineExecutor;
  readonly #pool: PoolExecutor;

  constructor(options: EngineOptions) {
    this.#admission = new Admission({ threads: options.maxThreads, maxQueue: options.maxQueue });
    this.#inline = new InlineExecutor(this.#admission);
    this.#pool = new PoolExecutor(this.#admission, options);
  }

  run(call: EngineCall): Promise<Outcome> {
    return call.tool.blocking
      ? this.#pool.run(call as EngineCall & { tool: RegisteredBlockingTool })
      : this.#inline.run(call as EngineCall & { tool: RegisteredInlineTool });
  }

  warmUp(): void {
    this.#pool.warmUp();
  }

  /** Thread slots not held by a running or dying call. */
  get freeThreads(): number {
    return this.#admission.freeThreads;
  }

  get queued(): number {
    return this.#admission.queued;
  }

  get threadCount(): number {
    return this.#pool.threadCount;
  }

  close(): Promise<void> {
    return this.#pool.close();
  }
}
