/**
 * `test_custom_headers`: a tool whose arguments are mirrored into `Mcp-Param-*` headers by
 * `x-mcp-header` (2026-07-28 Streamable HTTP). A string, an integer and a boolean are annotated,
 * one string is not; over modern HTTP the server checks every annotated argument against its
 * header before the call runs (missing, different or badly encoded -> 400 / -32020).
 *
 * The handler just says what it received, so a client can see the body's values reached it.
 */
import type { McpServer } from '../../lib/index.js';

export function addHeaderTools(server: McpServer): McpServer {
  return server.tool({
    name: 'test_custom_headers',
    description: 'Mirrors region, priority and verbose into Mcp-Param-Region, -Priority and -Verbose',
    inputSchema: {
      type: 'object',
      properties: {
        region: { type: 'string', description: 'Where to run', 'x-mcp-header': 'Region' },
        priority: { type: 'integer', description: 'Larger runs sooner', 'x-mcp-header': 'Priority' },
        verbose: { type: 'boolean', description: 'Say more', 'x-mcp-header': 'Verbose' },
        query: { type: 'string', description: 'Not mirrored into a header' },
      },
      required: ['region', 'priority', 'query'],
    },
    handler: ({ region, priority, verbose, query }) =>
      `region=${region} priority=${priority} verbose=${verbose ?? '(absent)'} query=${query}`,
  });
}
