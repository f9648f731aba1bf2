/**
 * `spin_process {ms}`: the demo's runaway `spin` in a pool process of its own (`isolation:
 * 'process'`), so the first-call-deadline scenario can time the first call on a process pool. Only
 * registered under `--spin-process`: a process pool starts a process at listen, which every other
 * scenario would pay for.
 */
import spin from '../../examples/tools/spin.js';
import { defineTool } from '../../lib/tool.js';

export default defineTool({
  ...spin,
  blocking: true,
  name: 'spin_process',
  description: 'Burns CPU for ms milliseconds with no checkpoints, in a pool process (2 s deadline).',
  isolation: 'process',
  module: import.meta.url,
});
