/**
 * The blocking tools of the fleet scenario, each twice: placed on the fleet (`weft worker`
 * processes) and placed on the server's own pool, so one server answers both in the same run and
 * the difference between the two columns is the fleet's round trip. The benchmark server registers
 * this module and the workers load it, as a deployment would share its tool module.
 *
 * The noops answer with the `n` they were given, so the scenario can tell a reply that belongs to
 * another call from its own.
 */
import hashChain from '../../examples/tools/hash-chain.js';
import { defineTool } from '../../lib/tool.js';

const NOOP_INPUT = {
  type: 'object',
  properties: { n: { type: 'integer', minimum: 0 } },
  required: ['n'],
  additionalProperties: false,
} as const;

export const noopFleet = defineTool({
  name: 'noop_fleet',
  description: 'Answers with n, on a fleet worker (measures the fleet round trip).',
  inputSchema: NOOP_INPUT,
  blocking: true,
  module: import.meta.url,
  export: 'noopFleet',
  placement: 'fleet',
  handler: ({ n }) => String(n),
});

export const noopLocal = defineTool({
  name: 'noop_local',
  description: "Answers with n, on the server's own pool (the baseline for noop_fleet).",
  inputSchema: NOOP_INPUT,
  blocking: true,
  module: import.meta.url,
  export: 'noopLocal',
  placement: 'local',
  handler: ({ n }) => String(n),
});

export const hashChainFleet = defineTool({
  name: 'hash_chain_fleet',
  description: 'hash_chain on a fleet worker.',
  inputSchema: hashChain.inputSchema,
  annotations: hashChain.annotations,
  blocking: true,
  module: import.meta.url,
  export: 'hashChainFleet',
  placement: 'fleet',
  handler: hashChain.handler,
});

export const hashChainLocal = defineTool({
  name: 'hash_chain_local',
  description: "hash_chain on the server's own pool (the baseline for hash_chain_fleet).",
  inputSchema: hashChain.inputSchema,
  annotations: hashChain.annotations,
  blocking: true,
  module: import.meta.url,
  export: 'hashChainLocal',
  placement: 'local',
  handler: hashChain.handler,
});
