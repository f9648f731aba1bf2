/**
 * A log that says each kind of trouble at most once per interval, then how many more there were.
 * A flood of bad tokens, or an authorization server that is down, would otherwise write a line per
 * request: the log itself becomes the cost a caller can impose.
 */
export class RateLimitedLog {
  readonly #write: (line: string) => void;
  readonly #intervalMs: number;
  /** Per kind: when it was last written, and how many were held back since. Kinds are a fixed few. */
  readonly #kinds = new Map<string, { at: number; suppressed: number }>();

  constructor(write: (line: string) => void, intervalMs = 10_000) {
    this.#write = write;
    this.#intervalMs = intervalMs;
  }

  /** Writes `line` unless a line of `kind` was written less than the interval ago. */
  log(kind: string, line: string, now = Date.now()): void {
    const last = this.#kinds.get(kind);
    if (last !== undefined && now - last.at < this.#intervalMs) {
      last.suppressed++;
      return;
    }
    const held = last?.suppressed ?? 0;
    this.#kinds.set(kind, { at: now, suppressed: 0 });
    this.#write(
      held > 0
        ? `${line} (${held} more like it in the last ${Math.round(this.#intervalMs / 1000)} s not logged)`
        : line,
    );
  }
}
