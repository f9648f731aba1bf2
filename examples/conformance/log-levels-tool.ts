/**
 * `test_logging_tool`: logs once at each of four levels, then answers at once. In the 2026-07-28
 * era a request opts in to logs with `_meta["io.modelcontextprotocol/logLevel"]`: with it, the
 * messages at that level or above arrive on the request's own stream before the result; without
 * it, none are sent at all (the suite checks that a request without a level gets no log).
 */
import type { McpServer } from '../../lib/index.js';

const LEVELS = ['debug', 'info', 'warning', 'error'] as const;

export function addLogLevelsTool(server: McpServer): McpServer {
  return server.tool({
    name: 'test_logging_tool',
    description: 'Logs one message at each of debug, info, warning and error, then answers',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    handler: (_args, ctx) => {
      for (const level of LEVELS) ctx.log(level, `A ${level} message from test_logging_tool`);
      return `Logged one message at each of ${LEVELS.join(', ')}`;
    },
  });
}
