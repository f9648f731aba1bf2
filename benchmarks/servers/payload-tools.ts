/**
 * weft's tools of the payload scenario: a text, a document's lines or an image result of `bytes`
 * bytes, and a text or image (base64) argument whose size is answered, each inline, on a pool
 * thread and in a pool process. A tool module of its own (`module: import.meta.url`), as users write blocking tools.
 */
import { type DefinedTool, defineTool } from '../../lib/tool.js';
import { argumentSize, payloadImage, payloadLines, payloadText } from '../peers/payload-work.js';

type Placement = 'inline' | 'thread' | 'process';
const suffix = { inline: '', thread: '_thread', process: '_process' } as const;
const where = (placement: Placement) =>
  placement === 'inline'
    ? {}
    : {
        blocking: true as const,
        module: import.meta.url,
        ...(placement === 'process' ? { isolation: 'process' as const } : {}),
      };
const sized = {
  type: 'object',
  properties: { bytes: { type: 'integer', minimum: 0 } },
  required: ['bytes'],
} as const;
const carrying = { type: 'object', properties: { data: { type: 'string' } }, required: ['data'] } as const;

/** A tool answering the text `make` builds for `bytes`, run where `placement` says. */
const sizedText =
  (stem: string, description: string, make: (bytes: number) => string) => (placement: Placement) =>
    defineTool({
      name: `${stem}${suffix[placement]}`,
      description,
      inputSchema: sized,
      ...where(placement),
      handler: ({ bytes }) => make(bytes),
    });
const textResult = sizedText('payload_text', 'Answers a text of `bytes` bytes', payloadText);
const linesResult = sizedText('payload_lines', 'Answers a document of `bytes` bytes', payloadLines);
const imageResult = (placement: Placement) =>
  defineTool({
    name: `payload_image${suffix[placement]}`,
    description: 'Answers an image of `bytes` bytes',
    inputSchema: sized,
    ...where(placement),
    handler: ({ bytes }) => ({
      content: [{ type: 'image', data: payloadImage(bytes), mimeType: 'image/png' }],
    }),
  });
const textArgument = (placement: Placement) =>
  defineTool({
    name: `payload_arg_text${suffix[placement]}`,
    description: 'Answers the length of its text',
    inputSchema: carrying,
    ...where(placement),
    handler: ({ data }) => argumentSize(data, 'text'),
  });
const imageArgument = (placement: Placement) =>
  defineTool({
    name: `payload_arg_image${suffix[placement]}`,
    description: 'Answers the size of its base64 image',
    inputSchema: carrying,
    ...where(placement),
    handler: ({ data }) => argumentSize(data, 'image'),
  });

export const textInline = textResult('inline');
export const textThread = textResult('thread');
export const textProcess = textResult('process');
export const linesInline = linesResult('inline');
export const linesThread = linesResult('thread');
export const linesProcess = linesResult('process');
export const imageInline = imageResult('inline');
export const imageThread = imageResult('thread');
export const imageProcess = imageResult('process');
export const argTextInline = textArgument('inline');
export const argTextThread = textArgument('thread');
export const argTextProcess = textArgument('process');
export const argImageInline = imageArgument('inline');
export const argImageThread = imageArgument('thread');
export const argImageProcess = imageArgument('process');

/** Every payload tool, as definitions (a union of their own types is too deep for TypeScript 5.9). */
export const PAYLOAD_TOOLS: readonly DefinedTool[] = [
  textInline as DefinedTool,
  textThread as DefinedTool,
  textProcess as DefinedTool,
  imageInline as DefinedTool,
  linesInline as DefinedTool,
  linesThread as DefinedTool,
  linesProcess as DefinedTool,
  imageThread as DefinedTool,
  imageProcess as DefinedTool,
  argTextInline as DefinedTool,
  argTextThread as DefinedTool,
  argTextProcess as DefinedTool,
  argImageInline as DefinedTool,
  argImageThread as DefinedTool,
  argImageProcess as DefinedTool,
];
