/**
 * What a mounted upstream's tools, prompts and resources (mounted-tools.ts, forward-tool-call.ts,
 * forwarded-tasks.ts, mounted-prompts.ts, mounted-resources.ts) need of its connection; and the one
 * way prompts and resources forward a request over it: refused with -32603 naming the mount while
 * it is down, the upstream's JSON-RPC error passed through with its code and data, anything else (a
 * timeout, a dropped connection) a -32603 that says what happened to the mount, with the detail
 * (which names the upstream's URL or command) in the log only (mount-naming.ts). A broken wire is
 * reported to the mount (`lost`), which reconnects.
 */
import { McpError } from '../client/client-errors.js';
import type { InputHandlers } from '../client/input-answers.js';
import type { McpClient } from '../client/mcp-client.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { ProtocolError } from '../protocol/protocol-error.js';
import type { ClientAsking } from '../tools/tool-context.js';

export interface UpstreamLink {
  /** How clients' errors name the mount (`the mount "label"`), never its URL or command. */
  readonly name: string;
  /** How the log names the upstream: its URL or command line, secrets masked. */
  readonly target: string;
  readonly namespace: string | undefined;
  /** The connected client, if any. */
  client(): McpClient | undefined;
  /** Why the upstream is down, or undefined while it is up. */
  down(): string | undefined;
  /** Logs `message` with the upstream's secrets masked. */
  logError(message: string): void;
  /** A request met a broken wire (`error`): the mount treats the link as lost and reconnects. */
  lost(error: unknown): void;
}

/**
 * What answers a modern upstream's `input_required` during a forwarded request: the weft request's
 * own `ctx` when it can ask its client (prompts/get, resources/read: live in a legacy session, in
 * rounds in a modern request, whose retry forwards again and finds the answer), else a refusal, so
 * the question never reaches the client of some unrelated tool call in flight.
 */
function answering(method: string, asking: ClientAsking | undefined): InputHandlers {
  const refuse = (what: string) => () => {
    throw new McpError(
      ErrorCode.InternalError,
      `weft's gateway cannot relay ${what} asked during ${method}: this request cannot ask its client`,
    );
  };
  const { elicit, sample, roots } = asking ?? {};
  return {
    onElicitation: elicit ? (params) => elicit(params as never) : refuse('elicitation'),
    onSampling: sample ? (params) => sample(params as never) as never : refuse('sampling'),
    roots: roots ? async () => (await roots()).roots : refuse('roots/list'),
  };
}

/** One request forwarded upstream; resolves with its result as the upstream sent it (era marker aside). */
export async function forward(
  link: UpstreamLink,
  method: string,
  params: Record<string, unknown>,
  signal: AbortSignal,
  asking?: ClientAsking,
): Promise<Record<string, unknown>> {
  const client = link.client();
  const down = link.down();
  if (!client || down !== undefined) {
    throw new ProtocolError(ErrorCode.InternalError, `${link.name} is down; weft is reconnecting`);
  }
  try {
    // The upstream's era markers are its own; this server's answer gets this server's.
    const { resultType: _resultType, ...result } = await client.request(method, params, {
      signal,
      input: answering(method, asking),
    });
    return result;
  } catch (error) {
    if (error instanceof McpError) throw new ProtocolError(error.code, error.message, error.data);
    throw new ProtocolError(ErrorCode.InternalError, failedMessage(link, method, error, signal));
  }
}

/**
 * What a client reads when a forwarded request failed other than by the upstream's own error; the
 * detail goes to the log, and a broken wire is reported as a lost link.
 */
export function failedMessage(
  link: UpstreamLink,
  what: string,
  error: unknown,
  signal?: AbortSignal,
): string {
  const detail = error instanceof Error ? error.message : String(error);
  if (!signal?.aborted) {
    link.logError(`weft gateway: ${link.target} (${link.name}) failed ${what}: ${detail}`);
    link.lost(error);
  }
  return `${link.name} failed ${what}; the gateway's log says why`;
}

/** The upstream's capability for `kind` (prompts, resources), when it declared one. */
export function capabilityOf(client: McpClient, kind: string): Record<string, unknown> | undefined {
  const capability = client.serverCapabilities[kind];
  return typeof capability === 'object' && capability !== null
    ? (capability as Record<string, unknown>)
    : undefined;
}
