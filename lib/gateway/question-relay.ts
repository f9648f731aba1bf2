/**
 * How an upstream's question (elicitation, sampling, roots) reaches the gateway's client, in that
 * client's era: a legacy client is asked live (a server-to-client request). A modern client cannot
 * be asked in the middle of a call (it answers on a later request, perhaps on another replica,
 * while a legacy upstream holds its request open), so the question is refused with a message that
 * says why; the upstream reports that as it sees fit. A modern client of a modern upstream never
 * gets here: the upstream's `input_required` is handed back to it as it is (forward-tool-call.ts).
 */
import { McpError } from '../client/client-errors.js';
import type { InputHandlers } from '../client/input-answers.js';
import type { ExactCallRequest } from '../tools/exact-tool.js';

/** What an upstream's question needs of the client it goes to. */
export type Asker = Pick<ExactCallRequest, 'era' | 'ask' | 'signal'>;

/** Handlers that put a question to the client of the call in `target()`, in that client's era. */
export function relayQuestions(target: () => Asker | undefined): InputHandlers {
  const ask = async (method: string, params: Record<string, unknown>) => {
    const call = target();
    if (call?.era !== 'legacy') {
      throw new McpError(
        -32603,
        call
          ? `the gateway's client speaks 2026-07-28 and cannot be asked ${method} in the middle of a call`
          : `no call of the gateway is waiting for ${method}`,
      );
    }
    return (await call.ask(method, params, call.signal)) as Record<string, unknown>;
  };
  return {
    onElicitation: (params) => ask('elicitation/create', params) as never,
    onSampling: (params) => ask('sampling/createMessage', params),
    roots: async () => ((await ask('roots/list', {})) as { roots: { uri: string }[] }).roots,
  };
}
