/**
 * A server module whose only blocking work is reached through transformed tools: one renamed
 * (`burn`, the original under a new face) and one with a custom handler (`spin_then_report`, an
 * inline tool whose forward runs `spin` in the pool). A fleet worker must run both originals.
 */
import { McpServer, transformTool } from '../../lib/index.js';
import { spin } from './fleet-tools.js';

export const burn = transformTool(spin, { name: 'burn', args: { ms: { rename: 'duration' } } });
export const spinThenReport = transformTool(spin, {
  name: 'spin_then_report',
  handler: async (args, _ctx, forward) => `report: ${await forward(args)}`,
});

export default new McpServer({ name: 'weft-fleet-transformed', version: '1.0.0' })
  .tool(burn as never)
  .tool(spinThenReport as never);
