/**
 * A server's health as probes see it: the readiness phase the facade moves (starting -> ready on
 * `listen`, draining on `drain`/SIGTERM, stopped on close), the checks of what the server cannot
 * serve without (pool threads when local blocking tools need them, the task store, the fleet's
 * Redis), and the probes' own port when one was asked for. It owns those watches and that
 * listener, and stops both when the server stops.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Engine } from '../engine/engine.js';
import type { TaskStore } from '../tasks/task-store.js';
import { closeListener, trackSockets } from '../transports/listener-close.js';
import { DependencyWatch } from './dependency-watch.js';
import { type HealthOptions, healthPathsOf } from './health-options.js';
import { HealthRoutes } from './health-routes.js';
import { Readiness } from './readiness.js';

/** How often the task store and the fleet are checked, and how long one check may take. */
const CHECK_INTERVAL_MS = 1_000;
const CHECK_TIMEOUT_MS = 1_000;

export interface ServerHealthParts {
  engine: Engine;
  store: TaskStore;
  /** Whether blocking tools run on this replica's own pool (then a thread must be up). */
  needsThreads: () => boolean;
  /** A fleet is configured: its Redis must be reachable. */
  fleet: boolean;
  /** How long every pool slot may stay lost before liveness fails (0: never). */
  lostSlotsLivenessMs: number;
}

export class ServerHealth {
  readonly readiness = new Readiness();
  /** Why this replica should be restarted, or undefined while it is alive and well. */
  readonly liveness: () => string | undefined;
  readonly #watches: DependencyWatch[] = [];
  readonly #listeners: Server[] = [];
  #portAddress: AddressInfo | undefined;

  constructor(parts: ServerHealthParts) {
    const { engine, store } = parts;
    this.readiness.addCheck({
      problem: () => {
        if (!parts.needsThreads()) return undefined;
        if (engine.threadCount === 0) return 'no worker thread of the pool is up';
        return engine.lostSlots.usable === 0 ? noUsableSlot(engine) : undefined;
      },
    });
    const bound = parts.lostSlotsLivenessMs;
    this.liveness = () =>
      bound > 0 && engine.lostSlots.allLostForMs() > bound
        ? `${noUsableSlot(engine)}, for over ${bound} ms (pool.lostSlotsLivenessMs): restart this replica`
        : undefined;
    this.#watch('the task store', () => store.ready().then(() => true));
    if (parts.fleet) {
      this.#watch("the fleet's Redis", () => engine.fleetQueueDepth().then((depth) => depth !== undefined));
    }
  }

  /** The probes at the paths `health` names, or undefined when it turned them off. */
  routes(health: false | HealthOptions | undefined, mcpPath: string): HealthRoutes | undefined {
    const paths = healthPathsOf(health, mcpPath);
    return paths && new HealthRoutes(paths, this.readiness, this.liveness);
  }

  /** Where the probes' own port listens, when one was asked for. */
  get address(): AddressInfo | undefined {
    return this.#portAddress;
  }

  /** Opens the probes' own port when `health.port` asks for one (before the server is ready). */
  async listenOwnPort(
    health: false | HealthOptions | undefined,
    mcpPath: string,
    mcpHost?: string,
  ): Promise<void> {
    const routes = this.routes(health, mcpPath);
    if (!routes || health === false || health?.port === undefined) return;
    const server = createServer((request, response) => {
      const pathname = new URL(request.url ?? '/', 'http://localhost').pathname;
      if (!routes.serve(pathname, request, response)) response.writeHead(404).end();
    });
    trackSockets(server);
    this.#listeners.push(server);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(health.port, health.host ?? mcpHost ?? '127.0.0.1', () => resolve());
    });
    this.#portAddress = server.address() as AddressInfo;
  }

  /** `listen` completed: ready, and the dependencies are watched from now on. */
  ready(): void {
    this.readiness.enter('ready');
    for (const watch of this.#watches) watch.start();
  }

  /** Readiness turns 503 at once; everything else goes on until the server closes. */
  drain(): void {
    this.readiness.enter('draining');
  }

  /** The server stopped: no more checks, and the probes' own port closes. */
  async close(): Promise<void> {
    this.readiness.enter('stopped');
    for (const watch of this.#watches) watch.stop();
    await Promise.all(this.#listeners.splice(0).map(closeListener));
  }

  #watch(name: string, probe: () => Promise<boolean>): void {
    const watch = new DependencyWatch({
      name,
      probe,
      intervalMs: CHECK_INTERVAL_MS,
      timeoutMs: CHECK_TIMEOUT_MS,
    });
    this.#watches.push(watch);
    this.readiness.addCheck(watch);
  }
}

/** Why no slot can run a call: each is held by a stopped call still inside native code. */
function noUsableSlot(engine: Engine): string {
  return `no pool slot can run a call: every one is held by a stopped call still inside native code (tools: ${engine.lostSlots.tools().join(', ')})`;
}
