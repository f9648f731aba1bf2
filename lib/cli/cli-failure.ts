/**
 * What the `weft` command prints when it fails, and the exit code it fails with. Only a command line
 * that does not parse earns the usage text; every other failure is one or two lines that say what
 * failed and what to do, printed once.
 *
 * Exit codes (docs/everyday.md): 0 done; 1 what ran failed (a server that cannot start, a module
 * that throws or registers a mistake, a server that cannot be reached, a tool result with isError);
 * 2 what was typed is wrong (an unknown flag, a missing argument or transport, a file that is not
 * there, an unknown tool, an argument of the wrong type); 130 interrupted by Ctrl-C.
 */

export const EXIT = { ok: 0, failed: 1, mistyped: 2, interrupted: 130 } as const;

/** The command line does not parse: the message, then the usage. */
export class UsageError extends Error {}

/** A failure the command has already explained: printed as is, no usage. */
export class CommandFailure extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failed,
  ) {
    super(message);
  }
}

interface Explained {
  text: string;
  exitCode: number;
  usage: boolean;
}

type Coded = Error & {
  code?: string | number;
  syscall?: string;
  port?: number;
  address?: string;
  cause?: unknown;
};

/** How `error` is shown: `weft: ...` lines, the exit code, and whether the usage follows. */
export function explain(error: unknown): Explained {
  const coded = (error ?? {}) as Coded;
  const message = coded.message ?? String(error);
  // A JSON-RPC error from a server has a numeric code: only node's own codes are strings.
  if (
    error instanceof UsageError ||
    (typeof coded.code === 'string' && coded.code.startsWith('ERR_PARSE_ARGS_'))
  ) {
    return { text: `weft: ${message}`, exitCode: EXIT.mistyped, usage: true };
  }
  if (error instanceof CommandFailure)
    return { text: `weft: ${message}`, exitCode: error.exitCode, usage: false };
  if (coded.syscall === 'listen' && coded.code === 'EADDRINUSE') {
    return failed(
      `${where(coded)} is already in use.\n` +
        'Stop the process that holds it, or choose another port (--http PORT, --ws PORT; 0 picks a free one).',
    );
  }
  if (coded.syscall === 'listen' && coded.code === 'EACCES') {
    return failed(
      `not allowed to listen on ${where(coded)}: ports below 1024 need privileges; choose another.`,
    );
  }
  const cause = (coded.cause ?? {}) as Coded;
  if (cause.code === 'ECONNREFUSED' || coded.code === 'ECONNREFUSED') {
    return failed(
      `${message}: nothing answers there (connection refused). Is the server running, on that port?`,
    );
  }
  return failed(message);
}

function failed(text: string): Explained {
  return { text: `weft: ${text}`, exitCode: EXIT.failed, usage: false };
}

function where(error: Coded): string {
  const host = error.address?.includes(':') ? `[${error.address}]` : error.address;
  return host === undefined ? `port ${error.port}` : `${host}:${error.port}`;
}
