/**
 * Every request the soak sends, and how it ended: answered (a result or a JSON-RPC error, both are
 * answers), cancelled by its client on purpose, or unanswered (no answer within the limit, or the
 * connection failed). The verdict needs unanswered = 0: a request the server dropped is a fault.
 */
export type Ending = 'answered' | 'cancelled';

const ANSWER_LIMIT_MS = 20_000;

export class RequestLedger {
  sent = 0;
  answered = 0;
  cancelled = 0;
  unanswered = 0;
  readonly byKind = new Map<
    string,
    { sent: number; answered: number; cancelled: number; unanswered: number }
  >();
  /** The first few failures, to say what went wrong. */
  readonly failures: string[] = [];

  /** Counts one request of `kind`; resolves with its value, or undefined when it went unanswered. */
  async track<T>(
    kind: string,
    pending: Promise<T>,
    ending: (value: T) => Ending = () => 'answered',
  ): Promise<T | undefined> {
    const row = this.#row(kind);
    this.sent++;
    row.sent++;
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ANSWER_LIMIT_MS} ms`)), ANSWER_LIMIT_MS);
    });
    try {
      const value = await Promise.race([pending, limit]);
      const how = ending(value);
      this[how]++;
      row[how]++;
      return value;
    } catch (error) {
      this.unanswered++;
      row.unanswered++;
      if (this.failures.length < 10) this.failures.push(`${kind}: ${(error as Error).message}`);
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }

  /** A request its client gave up on by design (aborted its stream, sent notifications/cancelled). */
  async abandoned<T>(kind: string, pending: Promise<T>): Promise<void> {
    await this.track(
      kind,
      pending.then(
        () => 'answered' as const,
        (error: Error) => {
          if (error.name === 'AbortError' || /cancel|abort/i.test(error.message)) return 'cancelled' as const;
          throw error;
        },
      ),
      (how) => how,
    );
  }

  /** A request its client cancelled and stopped waiting for (no answer is expected). */
  gaveUp(kind: string): void {
    const row = this.#row(kind);
    this.sent++;
    row.sent++;
    this.cancelled++;
    row.cancelled++;
  }

  #row(kind: string) {
    let row = this.byKind.get(kind);
    if (!row) {
      row = { sent: 0, answered: 0, cancelled: 0, unanswered: 0 };
      this.byKind.set(kind, row);
    }
    return row;
  }
}
