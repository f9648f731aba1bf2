/**
 * The conformance suite's content tools: one per content type, an error, and a schema that uses
 * JSON Schema 2020-12 keywords (`$schema`, `$defs`, `$anchor`, `$ref`, `allOf`/`anyOf`, `if`/`then`/`else`),
 * which must be published unchanged.
 */
import type { McpServer } from '../../lib/index.js';
import { RED_PIXEL_PNG, SILENT_WAV } from './media.js';

const NO_ARGUMENTS = { type: 'object', properties: {}, additionalProperties: false } as const;

export function addContentTools(server: McpServer): McpServer {
  return server
    .tool({
      name: 'test_simple_text',
      description: 'Returns one text block',
      inputSchema: NO_ARGUMENTS,
      handler: () => 'This is a simple text response for testing.',
    })
    .tool({
      name: 'test_image_content',
      description: 'Returns one image block (a 1x1 red PNG)',
      inputSchema: NO_ARGUMENTS,
      handler: () => ({ content: [{ type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' }] }),
    })
    .tool({
      name: 'test_audio_content',
      description: 'Returns one audio block (a short silent WAV)',
      inputSchema: NO_ARGUMENTS,
      handler: () => ({ content: [{ type: 'audio', data: SILENT_WAV, mimeType: 'audio/wav' }] }),
    })
    .tool({
      name: 'test_embedded_resource',
      description: 'Returns one embedded text resource',
      inputSchema: NO_ARGUMENTS,
      handler: () => ({
        content: [
          {
            type: 'resource',
            resource: {
              uri: 'test://embedded-resource',
              mimeType: 'text/plain',
              text: 'This is an embedded resource content.',
            },
          },
        ],
      }),
    })
    .tool({
      name: 'test_multiple_content_types',
      description: 'Returns text, image and embedded-resource blocks together',
      inputSchema: NO_ARGUMENTS,
      handler: () => ({
        content: [
          { type: 'text', text: 'Multiple content types test:' },
          { type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' },
          {
            type: 'resource',
            resource: {
              uri: 'test://mixed-content-resource',
              mimeType: 'application/json',
              text: JSON.stringify({ test: 'data', value: 123 }),
            },
          },
        ],
      }),
    })
    .tool({
      name: 'test_error_handling',
      description: 'Always fails, to show a tool error reaching the client as isError',
      inputSchema: NO_ARGUMENTS,
      handler: () => {
        throw new Error('This tool intentionally returns an error for testing');
      },
    })
    .tool({
      name: 'json_schema_2020_12_tool',
      description: 'Tool with JSON Schema 2020-12 features',
      inputSchema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: {
          address: {
            $anchor: 'addressDef',
            type: 'object',
            properties: { street: { type: 'string' }, city: { type: 'string' } },
          },
        },
        properties: {
          name: { type: 'string' },
          address: { $ref: '#/$defs/address' },
          contactMethod: { type: 'string', enum: ['phone', 'email'] },
          phone: { type: 'string' },
          email: { type: 'string' },
        },
        allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
        if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
        // biome-ignore lint/suspicious/noThenProperty: a JSON Schema conditional (an object, so never a thenable)
        then: { required: ['phone'] },
        else: { required: ['email'] },
        additionalProperties: false,
      },
      handler: (args) => `Received: ${JSON.stringify(args)}`,
    });
}
