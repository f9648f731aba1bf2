/**
 * A server with a skills folder (examples/skills/, SEP-2640), for `weft serve` and for the
 * Inspector's `skills/list --verify` run (scripts/inspector-skills.mjs). The folder is found from
 * the built file (dist/examples/), since tsc does not copy it.
 */
import { fileURLToPath } from 'node:url';
import { McpServer } from '../lib/index.js';

const folder = fileURLToPath(new URL('../../examples/skills', import.meta.url));

export default new McpServer({ name: 'skills-example', version: '1.0.0' }).skills(folder);
