/**
 * The server's `fleet` option: the Redis and BullMQ queue that `weft worker` processes serve, and
 * the bounds a replica keeps on what it sends there. Checked when the server is built, with a
 * message that says what to fix.
 */
import { checkRedisUrl } from '../redis-url.js';
import type { Placement } from '../tools/tool-definition.js';

export interface FleetOptions {
  /** The Redis the fleet shares (queue, cancels, events): a redis:// or rediss:// URL. */
  redis: string;
  /** The BullMQ queue; every `weft worker --queue` serving this server names the same (default `weft`). */
  queue?: string;
  /**
   * Jobs waiting in the fleet queue (not yet taken by a worker) beyond which a new fleet call is
   * refused at once as overloaded (default 1,000). Each replica reads the count at most every
   * 25 ms and adds the jobs it sent since, so replicas adding at the same instant may pass the
   * bound by what they add together within those 25 ms.
   */
  maxWaiting?: number;
  /** Where blocking tools without a `placement` of their own run (default `'fleet'`). */
  placement?: Placement;
  /**
   * How often a replica checks that the workers running its calls are alive (their BullMQ lock),
   * in ms (default 1,000). A call whose worker died ends as panicked within the workers' lock
   * duration (`weft worker --lock-ms`, default 5,000) plus this.
   */
  checkIntervalMs?: number;
}

const FLEET_OPTION_KEYS = new Set(['redis', 'queue', 'maxWaiting', 'placement', 'checkIntervalMs']);

/** BullMQ forbids ':' in queue names (it separates its keys); the rest keeps names readable in Redis. */
const QUEUE_NAME = /^[A-Za-z0-9_.-]{1,100}$/;

export function checkFleetOptions(fleet: FleetOptions | undefined, where = 'McpServer: fleet'): void {
  if (fleet === undefined) return;
  if (typeof fleet !== 'object' || fleet === null) {
    throw new TypeError(`${where} must be an object such as { redis: 'redis://127.0.0.1:6379' }`);
  }
  for (const key of Object.keys(fleet)) {
    if (!FLEET_OPTION_KEYS.has(key)) {
      throw new TypeError(`${where}: unknown option "${key}". Known: ${[...FLEET_OPTION_KEYS].join(', ')}`);
    }
  }
  checkRedisUrl(fleet.redis, `${where}.redis`);
  checkQueueName(fleet.queue, `${where}.queue`);
  if (fleet.maxWaiting !== undefined && !(Number.isInteger(fleet.maxWaiting) && fleet.maxWaiting >= 0)) {
    throw new TypeError(
      `${where}.maxWaiting must be a whole number of jobs (0 or more), got ${fleet.maxWaiting}`,
    );
  }
  if (fleet.placement !== undefined && fleet.placement !== 'fleet' && fleet.placement !== 'local') {
    throw new TypeError(
      `${where}.placement must be 'fleet' or 'local', got ${JSON.stringify(fleet.placement)}`,
    );
  }
  const interval = fleet.checkIntervalMs;
  if (interval !== undefined && !(Number.isInteger(interval) && interval >= 50)) {
    throw new TypeError(`${where}.checkIntervalMs must be a whole number of at least 50 ms, got ${interval}`);
  }
}

export function checkQueueName(queue: unknown, what: string): void {
  if (queue === undefined) return;
  if (typeof queue !== 'string' || !QUEUE_NAME.test(queue)) {
    throw new TypeError(
      `${what} must be 1 to 100 characters of [A-Za-z0-9_.-], got ${JSON.stringify(queue)}`,
    );
  }
}
