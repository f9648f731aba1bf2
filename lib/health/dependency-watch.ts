/**
 * A dependency readiness needs (the task store's Redis, the fleet's Redis), checked in the
 * background every `intervalMs` so that a probe only reads the last result. A check that does not
 * answer within `timeoutMs` counts as down: a Redis that hangs is as unusable as one that refuses.
 * The timer is unref'd and stopped when the server stops.
 */
import type { ReadinessCheck } from './readiness.js';

export interface DependencyWatchOptions {
  /** What it is, as the reason says it (`the task store's Redis`): never an address or a secret. */
  name: string;
  /** Resolves true when reachable; false or a rejection when not. */
  probe: () => Promise<boolean>;
  intervalMs: number;
  timeoutMs: number;
}

export class DependencyWatch implements ReadinessCheck {
  readonly #options: DependencyWatchOptions;
  /** Up until a check says otherwise: the server checked it before it began listening. */
  #up = true;
  #timer: NodeJS.Timeout | undefined;
  #checking = false;

  constructor(options: DependencyWatchOptions) {
    this.#options = options;
  }

  problem(): string | undefined {
    return this.#up ? undefined : `${this.#options.name} is unreachable`;
  }

  start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => void this.check(), this.#options.intervalMs).unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** One check now (skipped while the previous one still runs); resolves once it is recorded. */
  async check(): Promise<void> {
    if (this.#checking) return;
    this.#checking = true;
    let timer: NodeJS.Timeout | undefined;
    try {
      this.#up = await Promise.race([
        this.#options.probe().catch(() => false),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(false), this.#options.timeoutMs);
        }),
      ]);
    } finally {
      clearTimeout(timer);
      this.#checking = false;
    }
  }
}
