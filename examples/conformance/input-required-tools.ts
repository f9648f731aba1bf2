/**
 * The conformance fixtures that ask the client for input while they run (multi-round-trip requests):
 * the `input-required-result-*` scenarios' tools and prompt, and `test_missing_capability`.
 *
 * They are ordinary weft handlers, written once for both eras: `ctx.elicit` / `ctx.sample` /
 * `ctx.roots` send real requests in a legacy session, and in a 2026-07-28 request end the round
 * with `input_required` and run again with the answers. Each question is given the key the
 * scenario expects (`{ key: 'user_name' }`). Several are blocking tools, so the rounds also run in
 * pool threads; `test_input_required_result_request_state` uses the explicit form, with a state of
 * its own that the server seals.
 */
import type { McpServer, ToolContext } from '../../lib/index.js';
import { defineTool, inputRequired, MissingClientCapabilityError } from '../../lib/tool.js';

const NO_ARGUMENTS = { type: 'object', properties: {}, additionalProperties: false } as const;

/** A one-field form: the shape every elicitation here asks for. */
const oneField = (message: string, field: string, type = 'string') => ({
  message,
  requestedSchema: { type: 'object', properties: { [field]: { type } }, required: [field] },
});

const textOf = (content: unknown) => {
  const block = content as { type?: string; text?: string };
  return block?.type === 'text' ? String(block.text) : JSON.stringify(content);
};

function asker(ctx: ToolContext) {
  if (!ctx.elicit || !ctx.sample || !ctx.roots) throw new Error('This call has no client to ask');
  return { elicit: ctx.elicit, sample: ctx.sample, roots: ctx.roots };
}

export const elicitationTool = defineTool({
  name: 'test_input_required_result_elicitation',
  description: "Asks the user's name (one elicitation), then greets them",
  blocking: true,
  module: import.meta.url,
  inputSchema: NO_ARGUMENTS,
  handler: async (_args, ctx) => {
    const answer = await asker(ctx).elicit(oneField('What is your name?', 'name'), { key: 'user_name' });
    return `Hello, ${String(answer.content?.name ?? 'stranger')}!`;
  },
});

export const samplingTool = defineTool({
  name: 'test_input_required_result_sampling',
  description: "Asks the client's model a question (one sampling request)",
  blocking: true,
  module: import.meta.url,
  inputSchema: NO_ARGUMENTS,
  handler: async (_args, ctx) => {
    const answer = await asker(ctx).sample(
      {
        messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }],
        maxTokens: 100,
      },
      { key: 'capital_question' },
    );
    return `The model said: ${textOf(answer.content)}`;
  },
});

export const multipleInputsTool = defineTool({
  name: 'test_input_required_result_multiple_inputs',
  description: 'Asks three things at once: the user (elicitation), the model (sampling) and the roots',
  blocking: true,
  module: import.meta.url,
  inputSchema: NO_ARGUMENTS,
  handler: async (_args, ctx) => {
    const { elicit, sample, roots } = asker(ctx);
    const [name, greeting, listed] = await Promise.all([
      elicit(oneField('What is your name?', 'name'), { key: 'user_name' }),
      sample(
        {
          messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }],
          maxTokens: 50,
        },
        { key: 'greeting' },
      ),
      roots({ key: 'client_roots' }),
    ]);
    return `${textOf(greeting.content)} ${String(name.content?.name)} (${listed.roots.length} root(s))`;
  },
});

export function addInputRequiredFixtures(server: McpServer): McpServer {
  return server
    .tool(elicitationTool)
    .tool(samplingTool)
    .tool(multipleInputsTool)
    .tool({
      name: 'test_input_required_result_list_roots',
      description: "Reads the client's roots (roots/list) and names them",
      inputSchema: NO_ARGUMENTS,
      handler: async (_args, ctx) => {
        const { roots } = await asker(ctx).roots({ key: 'client_roots' });
        return `Roots: ${roots.map((root) => root.uri).join(', ')}`;
      },
    })
    .tool({
      name: 'test_input_required_result_request_state',
      description: 'Asks for a confirmation in the explicit form, carrying a state of its own',
      inputSchema: NO_ARGUMENTS,
      handler: (_args, ctx) => {
        const state = ctx.requestState as { step?: string } | undefined;
        const confirm = ctx.inputResponses?.confirm as
          | { action?: string; content?: { ok?: unknown } }
          | undefined;
        if (state?.step !== 'confirm' || confirm === undefined) {
          return inputRequired(
            {
              confirm: {
                method: 'elicitation/create',
                params: oneField('Please confirm', 'ok', 'boolean'),
              },
            },
            { step: 'confirm' },
          );
        }
        return `state-ok: the server's own state came back verified (ok=${String(confirm.content?.ok)})`;
      },
    })
    .tool({
      name: 'test_input_required_result_multi_round',
      description: 'Asks two questions, one round each: the second only once the first is answered',
      inputSchema: NO_ARGUMENTS,
      handler: async (_args, ctx) => {
        const { elicit } = asker(ctx);
        const name = await elicit(oneField('Step 1: What is your name?', 'name'), { key: 'step1' });
        const color = await elicit(oneField('Step 2: What is your favorite color?', 'color'), {
          key: 'step2',
        });
        return `${String(name.content?.name)} likes ${String(color.content?.color)}`;
      },
    })
    .tool({
      name: 'test_input_required_result_tampered_state',
      description: 'Asks one confirmation; its sealed requestState refuses any change',
      inputSchema: NO_ARGUMENTS,
      handler: async (_args, ctx) => {
        const answer = await asker(ctx).elicit(oneField('Please confirm', 'ok', 'boolean'), {
          key: 'confirm',
        });
        return `Confirmed: ${answer.action}`;
      },
    })
    .tool({
      name: 'test_input_required_result_capabilities',
      description: 'Asks the user if the client can elicit, otherwise asks the model',
      inputSchema: NO_ARGUMENTS,
      handler: async (_args, ctx) => {
        const { elicit, sample } = asker(ctx);
        try {
          const answer = await elicit(oneField('What is your name?', 'name'), { key: 'user_name' });
          return `Hello, ${String(answer.content?.name)}!`;
        } catch (error) {
          if (!(error instanceof MissingClientCapabilityError)) throw error;
          const answer = await sample(
            {
              messages: [{ role: 'user', content: { type: 'text', text: 'Suggest a name' } }],
              maxTokens: 20,
            },
            { key: 'suggested_name' },
          );
          return `Hello, ${textOf(answer.content)}!`;
        }
      },
    })
    .tool({
      name: 'test_missing_capability',
      description: "Needs the client's model (sampling) and cannot do without it",
      inputSchema: NO_ARGUMENTS,
      handler: async (_args, ctx) => {
        const answer = await asker(ctx).sample({
          messages: [{ role: 'user', content: { type: 'text', text: 'Say hello' } }],
          maxTokens: 20,
        });
        return textOf(answer.content);
      },
    })
    .tool({
      name: 'test_streaming_elicitation',
      description: 'Asks the user one question; its answer never arrives as a request on the stream',
      inputSchema: NO_ARGUMENTS,
      handler: async (_args, ctx) => {
        const answer = await asker(ctx).elicit(oneField('Anything to add?', 'note'));
        return `Noted: ${String(answer.content?.note ?? '')}`;
      },
    })
    .prompt({
      name: 'test_input_required_result_prompt',
      description: 'A prompt built from context the user gives (elicitation) while it is fetched',
      get: async (_args, ctx) => {
        if (!ctx.elicit) throw new Error('This request has no client to ask');
        const answer = await ctx.elicit(oneField('What context should the prompt use?', 'context'), {
          key: 'user_context',
        });
        return `Write with this context in mind: ${String(answer.content?.context)}`;
      },
    });
}
