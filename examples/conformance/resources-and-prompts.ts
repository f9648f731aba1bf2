/**
 * The conformance suite's resources (static text, static binary, a template, a watched resource)
 * and prompts (simple, with arguments, with an embedded resource, with an image).
 */
import type { McpServer } from '../../lib/index.js';
import { RED_PIXEL_PNG } from './media.js';

export function addResourcesAndPrompts(server: McpServer): McpServer {
  return server
    .resource({
      uri: 'test://static-text',
      name: 'static-text',
      description: 'A fixed text resource',
      mimeType: 'text/plain',
      read: () => 'This is the content of the static text resource.',
    })
    .resource({
      uri: 'test://static-binary',
      name: 'static-binary',
      description: 'A fixed binary resource (a 1x1 PNG)',
      mimeType: 'image/png',
      read: () => Buffer.from(RED_PIXEL_PNG, 'base64'),
    })
    .resource({
      uri: 'test://watched-resource',
      name: 'watched-resource',
      description: 'A resource clients may subscribe to',
      mimeType: 'text/plain',
      read: () => 'Watched resource content',
    })
    .resourceTemplate({
      uriTemplate: 'test://template/{id}/data',
      name: 'template-data',
      description: 'Data for any id',
      mimeType: 'application/json',
      read: (uri, { id }) => JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}`, uri }),
      complete: { id: (value) => ['123', '456', '789'].filter((id) => id.startsWith(value)) },
    })
    .prompt({
      name: 'test_simple_prompt',
      description: 'A prompt without arguments',
      get: () => 'This is a simple prompt for testing.',
    })
    .prompt({
      name: 'test_prompt_with_arguments',
      description: 'A prompt with two required arguments',
      arguments: [
        {
          name: 'arg1',
          description: 'First test argument',
          required: true,
          complete: (value) => ['paris', 'park', 'party'].filter((word) => word.startsWith(value)),
        },
        { name: 'arg2', description: 'Second test argument', required: true },
      ],
      get: ({ arg1, arg2 }) => `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`,
    })
    .prompt({
      name: 'test_prompt_with_embedded_resource',
      description: 'A prompt that embeds the resource it is given',
      arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
      get: ({ resourceUri }) => [
        {
          role: 'user',
          content: {
            type: 'resource',
            resource: {
              uri: resourceUri!,
              mimeType: 'text/plain',
              text: 'Embedded resource content for testing.',
            },
          },
        },
        { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
      ],
    })
    .prompt({
      name: 'test_prompt_with_image',
      description: 'A prompt that carries an image',
      get: () => [
        { role: 'user', content: { type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' } },
        { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
      ],
    });
}
