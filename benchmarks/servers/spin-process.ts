/**
 * `spin_process {ms}`: the demo's runaway `spin` in a pool process of its own (`isolation:
 * 'process'`), so the first-call-deadline scenario can time the first call on a process pool. Only
 * registered under `--spin-process`: a process pool starts a process at listen, which every other
 * scenario would pay for.
 */
import { defineTool } from '../../lib/tool.js';

export default defineTool({
  name: 'spin_process',
  description: 'Burns CPU for ms milliseconds with no checkpoints, in a pool process (2 s deadline).',
  inputSchema: {
    type: 'object',
    properties: { ms: { type: 'integer', minimum: 0 } },
    required: ['ms'],
    additionalProperties: false,
  },
  blocking: true,
  isolation: 'process',
  module: import.meta.url,
  timeoutMs: 2_000,
  handler: ({ ms }) => {
    const until = Date.now() + ms;
    let spins = 0;
    while (Date.now() < until) spins++;
    return `spun ${ms} ms (${spins} iterations)`;
  },
});
