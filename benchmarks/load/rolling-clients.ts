/**
 * The callers of a rolling restart (test/deploy/ and the rolling-restart scenario), all through the
 * balancer, each keeping books so nothing can vanish unnoticed:
 * - modern callers (weft's client, 2026-07-28, stateless): `hash` calls (a blocking tool on the
 *   replicas' pools), back to back; every failure is counted with its message;
 * - legacy clients (the official SDK 1.x, 2025-11-25 sessions stuck to a replica by Mcp-Session-Id):
 *   `hash` calls; after an error the client starts a new session (what the spec asks on 404), and
 *   the longest run of errors between two answers is kept;
 * - tasks (modern, polled with tasks/get through the balancer, so across replicas): `report`, one
 *   started every `taskEveryMs`; each must end `completed`, anything else is a lost task;
 * - fleet calls: `crunch` on a `weft worker`, now and then, and a few as tasks.
 * Latencies are kept with the time each call started, so a window (before / during the roll) can
 * be cut out afterwards.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connect, type McpClient } from '../../lib/client/index.js';

export interface RollingLoadOptions {
  url: string;
  modernCallers?: number;
  legacyClients?: number;
  taskEveryMs?: number;
  taskMs?: number;
  fleetEveryMs?: number;
  /** CPU each `hash` call spins on a replica's pool (ms). */
  hashMs?: number;
  /**
   * How long a legacy (SDK 1.x) call may wait before its client gives up (ms). A call whose stream
   * died with its replica and could not be resumed is never settled by the SDK: without this it
   * waits the SDK's 60 s default and holds the load's stop that long.
   */
  legacyTimeoutMs?: number;
}

export interface CallSample {
  startedAt: number;
  ms: number;
}

export interface LegacyBooks {
  ok: number;
  errors: number;
  /** Longest run of errors between two answers (reconnect attempts included). */
  maxErrorsInARow: number;
  sessions: number;
  lastOkAt: number;
  /** Why calls failed (the first of each kind is what a report shows). */
  failures: string[];
}

export interface RollingBooks {
  modern: { ok: number; failed: number; failures: string[]; samples: CallSample[] };
  legacy: LegacyBooks[];
  tasks: { started: number; completed: number; lost: number; failures: string[] };
  fleet: { ok: number; failed: number; failures: string[] };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const textOf = (result: Record<string, unknown>) =>
  ((result.content as { text?: string }[] | undefined) ?? [])[0]?.text ?? JSON.stringify(result);

export class RollingLoad {
  readonly books: RollingBooks = {
    modern: { ok: 0, failed: 0, failures: [], samples: [] },
    legacy: [],
    tasks: { started: 0, completed: 0, lost: 0, failures: [] },
    fleet: { ok: 0, failed: 0, failures: [] },
  };
  readonly #options: Required<RollingLoadOptions>;
  #running = true;
  readonly #loops: Promise<void>[] = [];
  readonly #inFlight = new Set<Promise<void>>();
  readonly #clients: McpClient[] = [];

  constructor(options: RollingLoadOptions) {
    this.#options = {
      modernCallers: 4,
      legacyClients: 2,
      taskEveryMs: 500,
      taskMs: 1_200,
      fleetEveryMs: 1_000,
      hashMs: 2,
      legacyTimeoutMs: 10_000,
      ...options,
    };
  }

  async start(): Promise<void> {
    const { url, modernCallers, legacyClients } = this.#options;
    const open = (tasks: boolean) => connect(url, { protocol: 'modern', tasks, timeoutMs: 30_000 });
    const callers = await Promise.all(Array.from({ length: modernCallers }, () => open(false)));
    const tasker = await open(true);
    this.#clients.push(...callers, tasker);
    for (const client of callers) this.#loops.push(this.#modernLoop(client));
    for (let i = 0; i < legacyClients; i++) {
      const books: LegacyBooks = {
        ok: 0,
        errors: 0,
        maxErrorsInARow: 0,
        sessions: 0,
        lastOkAt: 0,
        failures: [],
      };
      this.books.legacy.push(books);
      this.#loops.push(this.#legacyLoop(books));
    }
    this.#loops.push(
      this.#every(this.#options.taskEveryMs, () => this.#task(tasker, 'report', this.#options.taskMs)),
    );
    this.#loops.push(
      this.#every(this.#options.fleetEveryMs, async () => {
        await this.#fleetCall(callers[0]!);
        // One in three fleet calls runs as a task of its own, handed over if its replica stops.
        if (this.books.fleet.ok % 3 === 0) await this.#task(tasker, 'crunch', 800);
      }),
    );
  }

  /** Stops starting work, waits for what was started (tasks to their end), closes the clients. */
  async stop(): Promise<RollingBooks> {
    this.#running = false;
    await Promise.all(this.#loops);
    await Promise.all(this.#inFlight);
    await Promise.all(this.#clients.map((client) => client.close().catch(() => {})));
    return this.books;
  }

  async #modernLoop(client: McpClient): Promise<void> {
    const books = this.books.modern;
    while (this.#running) {
      const startedAt = performance.now();
      try {
        const result = await client.callTool('hash', { ms: this.#options.hashMs });
        if (result.isError) throw new Error(textOf(result));
        books.ok++;
        books.samples.push({ startedAt, ms: performance.now() - startedAt });
      } catch (error) {
        books.failed++;
        books.failures.push((error as Error).message);
      }
    }
  }

  async #legacyLoop(books: LegacyBooks): Promise<void> {
    let client: Client | undefined;
    let inARow = 0;
    const failed = async (error: unknown) => {
      books.errors++;
      inARow++;
      books.maxErrorsInARow = Math.max(books.maxErrorsInARow, inARow);
      books.failures.push((error as Error).message);
      await client?.close().catch(() => {});
      client = undefined;
      await sleep(50);
    };
    while (this.#running) {
      try {
        if (!client) {
          const fresh = new Client({ name: 'rolling-legacy', version: '1.0.0' });
          // The SDK reports a stream it could not resume here; the next call says what matters.
          fresh.onerror = () => {};
          await fresh.connect(new StreamableHTTPClientTransport(new URL(this.#options.url)));
          client = fresh;
          books.sessions++;
        }
        const result = await client.callTool(
          { name: 'hash', arguments: { ms: this.#options.hashMs } },
          undefined,
          {
            timeout: this.#options.legacyTimeoutMs,
          },
        );
        if (result.isError) throw new Error(textOf(result));
        books.ok++;
        books.lastOkAt = Date.now();
        inARow = 0;
      } catch (error) {
        await failed(error);
      }
    }
    await client?.close().catch(() => {});
  }

  async #every(ms: number, work: () => Promise<void>): Promise<void> {
    while (this.#running) {
      const job = work();
      this.#inFlight.add(job);
      void job.finally(() => this.#inFlight.delete(job));
      await sleep(ms);
    }
  }

  async #task(client: McpClient, tool: string, ms: number): Promise<void> {
    const books = this.books.tasks;
    books.started++;
    try {
      const result = await client.callTool(tool, { ms });
      if (result.isError) throw new Error(textOf(result));
      books.completed++;
    } catch (error) {
      books.lost++;
      books.failures.push(`${tool}: ${(error as Error).message}`);
    }
  }

  async #fleetCall(client: McpClient): Promise<void> {
    const books = this.books.fleet;
    try {
      const result = await client.callTool('crunch', { ms: 20 });
      if (result.isError) throw new Error(textOf(result));
      books.ok++;
    } catch (error) {
      books.failed++;
      books.failures.push((error as Error).message);
    }
  }
}

/** The p-th percentile (0..100) of the samples that started within [from, to). */
export function percentileWithin(
  samples: readonly CallSample[],
  from: number,
  to: number,
  p: number,
): number {
  const values = samples
    .filter((sample) => sample.startedAt >= from && sample.startedAt < to)
    .map((sample) => sample.ms)
    .sort((a, b) => a - b);
  if (values.length === 0) return Number.NaN;
  return values[Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)]!;
}
