/**
 * The fleet's one clock: the Redis server's (`TIME`). A call's deadline crosses machines as a time
 * on this clock, so a replica and a worker need not agree on the time of day, only each know how
 * far its own clock is from Redis's. Each side measures that offset with a `TIME` round trip and
 * takes the midpoint; the error is at most half the round trip (well under a millisecond on a
 * LAN), and it is measured again every minute so a drifting or stepped clock is followed.
 *
 * The replica also keeps its own timer for every fleet call, so a deadline is answered on time
 * even if the worker's view of it were off: the worker's copy is a backstop that stops the work.
 */
import type { Redis } from 'ioredis';

const RESYNC_MS = 60_000;

export class FleetClock {
  readonly #redis: Redis;
  /** Redis time minus local time, in ms. */
  #offsetMs = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(redis: Redis) {
    this.#redis = redis;
  }

  /** Measures the offset now, then every minute, until `stop`. */
  async start(): Promise<void> {
    await this.sync();
    this.#timer ??= setInterval(() => this.sync().catch(() => {}), RESYNC_MS).unref();
  }

  async sync(): Promise<void> {
    const before = Date.now();
    const [seconds, micros] = await this.#redis.time();
    const after = Date.now();
    const redisMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    this.#offsetMs = redisMs - (before + after) / 2;
  }

  /** Now, on the fleet's clock. */
  now(): number {
    return Date.now() + this.#offsetMs;
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
