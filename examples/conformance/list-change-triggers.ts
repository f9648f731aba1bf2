/**
 * `test_trigger_tool_change` and `test_trigger_prompt_change`: tools that change the server's own
 * tool or prompt list, so a client holding a `subscriptions/listen` stream (or a legacy session)
 * hears the list_changed notification. Each call toggles one companion entry (added when absent,
 * removed when present), so every call is a real change and repeated runs stay bounded.
 *
 * They use `ctx.tools()` / `ctx.prompts()`, the same views any weft handler has; nothing in the
 * library knows these names.
 */
import type { McpServer } from '../../lib/index.js';

const NO_ARGUMENTS = { type: 'object', properties: {}, additionalProperties: false } as const;
const COMPANION_TOOL = 'test_tool_toggled_by_trigger';
const COMPANION_PROMPT = 'test_prompt_toggled_by_trigger';

export function addListChangeTriggers(server: McpServer): McpServer {
  return server
    .tool({
      name: 'test_trigger_tool_change',
      description: `Adds or removes the tool ${COMPANION_TOOL}, so clients hear notifications/tools/list_changed`,
      inputSchema: NO_ARGUMENTS,
      handler: async (_args, ctx) => {
        const tools = ctx.tools();
        if (await tools.remove(COMPANION_TOOL)) return `Removed ${COMPANION_TOOL}`;
        await tools.add({
          name: COMPANION_TOOL,
          description: 'Exists every other time test_trigger_tool_change runs',
          inputSchema: NO_ARGUMENTS,
          handler: () => 'The toggled tool answers',
        });
        return `Added ${COMPANION_TOOL}`;
      },
    })
    .tool({
      name: 'test_trigger_prompt_change',
      description: `Adds or removes the prompt ${COMPANION_PROMPT}, so clients hear notifications/prompts/list_changed`,
      inputSchema: NO_ARGUMENTS,
      handler: async (_args, ctx) => {
        const prompts = ctx.prompts();
        if (await prompts.remove(COMPANION_PROMPT)) return `Removed ${COMPANION_PROMPT}`;
        await prompts.add({
          name: COMPANION_PROMPT,
          description: 'Exists every other time test_trigger_prompt_change runs',
          get: () => 'The toggled prompt',
        });
        return `Added ${COMPANION_PROMPT}`;
      },
    });
}
