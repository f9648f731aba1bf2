/** A module in the shape `weft serve` expects: its default export returns an McpServer. */
import { McpServer } from '../../lib/index.js';

export default () =>
  new McpServer({ name: 'served-by-cli', version: '1.0.0' }).tool({
    name: 'hello',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    handler: ({ name }) => `hello, ${name}`,
  });
