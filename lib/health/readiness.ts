/**
 * Whether this replica should be sent new work, as a balancer or an orchestrator asks `/readyz`:
 * a phase (starting, ready, draining, stopped) the server moves through, plus the dependencies it
 * cannot serve without (pool threads, the shared task store, the fleet's Redis). The answer is
 * computed from what is already known (dependency checks run in the background, see
 * dependency-watch.ts), so a probe costs a few microseconds and never waits on Redis.
 */

export type ReadinessPhase = 'starting' | 'ready' | 'draining' | 'stopped';

/** One thing readiness depends on: `problem()` says why it is not fine now, undefined when it is. */
export interface ReadinessCheck {
  problem(): string | undefined;
}

export interface ReadinessAnswer {
  ready: boolean;
  /** `ready`, or the phase/dependency that keeps it from being ready. */
  status: ReadinessPhase | 'unavailable';
  /** Why not ready, for a human reading the balancer's log; no address, key or secret. */
  reason?: string;
}

const NOT_READY: Record<Exclude<ReadinessPhase, 'ready'>, string> = {
  starting: 'the server is starting',
  draining:
    'the server is draining: it finishes what it runs and takes no new work once the balancer has noticed',
  stopped: 'the server has stopped',
};

export class Readiness {
  #phase: ReadinessPhase = 'starting';
  readonly #checks: ReadinessCheck[] = [];

  get phase(): ReadinessPhase {
    return this.#phase;
  }

  /** Moves forward only: a draining server never becomes ready again. */
  enter(phase: ReadinessPhase): void {
    const order: ReadinessPhase[] = ['starting', 'ready', 'draining', 'stopped'];
    if (order.indexOf(phase) > order.indexOf(this.#phase)) this.#phase = phase;
  }

  addCheck(check: ReadinessCheck): void {
    this.#checks.push(check);
  }

  answer(): ReadinessAnswer {
    if (this.#phase !== 'ready') return { ready: false, status: this.#phase, reason: NOT_READY[this.#phase] };
    for (const check of this.#checks) {
      const problem = check.problem();
      if (problem !== undefined) return { ready: false, status: 'unavailable', reason: problem };
    }
    return { ready: true, status: 'ready' };
  }
}
