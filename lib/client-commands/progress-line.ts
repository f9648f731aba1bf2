/**
 * `weft call`'s progress: on a terminal, one line on stderr rewritten in place (a long call once
 * printed a thousand lines), cleared when the call ends so the result stands alone; when stderr
 * is not a terminal (a pipe, a log, CI) or with --quiet, nothing.
 */

interface Terminal {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

/** A progress notification's params, as the client hands them over. */
export interface Progress {
  progress?: unknown;
  total?: unknown;
  message?: unknown;
}

/** At most this often is the line rewritten: a tool may report progress thousands of times a second. */
const REDRAW_MS = 50;
const CLEAR = '\r\x1b[2K';

export class ProgressLine {
  readonly #out: Terminal | undefined;
  #shown = false;
  #lastDrawn = 0;

  constructor(out: Terminal, quiet: boolean) {
    this.#out = quiet || out.isTTY !== true ? undefined : out;
  }

  show(progress: Progress, now = Date.now()): void {
    if (this.#out === undefined || (this.#shown && now - this.#lastDrawn < REDRAW_MS)) return;
    const total = progress.total === undefined ? '' : `/${progress.total}`;
    const message = progress.message === undefined ? '' : ` ${progress.message}`;
    let line = `progress ${progress.progress}${total}${message}`.replace(/[\r\n]+/g, ' ');
    // A pseudo-terminal may report no width (0).
    const width = this.#out.columns || 80;
    if (line.length >= width) line = `${line.slice(0, Math.max(0, width - 2))}…`;
    this.#out.write(`${CLEAR}${line}`);
    this.#shown = true;
    this.#lastDrawn = now;
  }

  /** The call ended: the line goes, so what follows starts on a clean line. */
  end(): void {
    if (this.#shown) this.#out?.write(CLEAR);
    this.#shown = false;
  }
}
