/** `compress {text, level}`: Brotli-compresses text and reports the ratio. */
import { brotliCompressSync, constants } from 'node:zlib';
import { defineTool } from '../../lib/tool.js';

export default defineTool({
  name: 'compress',
  description: 'Compresses text with Brotli and returns the compressed size, ratio and base64 data.',
  inputSchema: {
    type: 'object',
    properties: {
      text: { type: 'string', maxLength: 8_000_000 },
      repeat: {
        type: 'integer',
        minimum: 1,
        maximum: 1000,
        default: 1,
        description: 'Repeat the text n times',
      },
      quality: { type: 'integer', minimum: 0, maximum: 11, default: 11 },
    },
    required: ['text'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      inputBytes: { type: 'integer' },
      outputBytes: { type: 'integer' },
      ratio: { type: 'number' },
      base64: { type: 'string' },
    },
    required: ['inputBytes', 'outputBytes', 'ratio'],
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  blocking: true,
  module: import.meta.url,
  handler: ({ text, repeat = 1, quality = 11 }) => {
    const input = Buffer.from(text.repeat(repeat), 'utf8');
    const output = brotliCompressSync(input, { params: { [constants.BROTLI_PARAM_QUALITY]: quality } });
    const result = {
      inputBytes: input.length,
      outputBytes: output.length,
      ratio: input.length === 0 ? 0 : Number((output.length / input.length).toFixed(4)),
    };
    return output.length <= 4096 ? { ...result, base64: output.toString('base64') } : result;
  },
});
