/**
 * zod-defined tools whose schemas do more than JSON Schema can: defaults and transforms (the handler
 * must see the schema's output, not the raw arguments), and an async refinement (validated before
 * the call runs). One runs in a pool process, to show the output crosses that boundary too.
 */
import { z } from 'zod';
import { defineTool } from '../../lib/tool.js';

export const zodTotal = defineTool({
  name: 'total_zod',
  description: 'Adds numbers in a pool process; label defaults, and the unit is normalised.',
  inputSchema: z.object({
    values: z.array(z.number()).min(1).max(100),
    label: z.string().default('total'),
    unit: z
      .enum(['ms', 's'])
      .default('ms')
      .transform((unit) => (unit === 'ms' ? 0.001 : 1)),
  }),
  outputSchema: z.object({ label: z.string(), seconds: z.number(), pid: z.number().int() }),
  blocking: true,
  isolation: 'process',
  module: import.meta.url,
  // `unit` is a number here: the schema's output type, not what the client sent.
  handler: ({ values, label, unit }) => ({
    label,
    seconds: values.reduce((sum, value) => sum + value, 0) * unit,
    pid: process.pid,
  }),
});

const TAKEN = new Set(['admin', 'root']);

export const zodClaim = defineTool({
  name: 'claim_zod',
  description: 'Claims a user name; the check that it is free runs asynchronously.',
  inputSchema: z.object({
    user: z
      .string()
      .min(3)
      .refine(async (user) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        return !TAKEN.has(user);
      }, 'that name is taken'),
  }),
  handler: ({ user }) => `claimed ${user}`,
});
