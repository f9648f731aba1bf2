/**
 * Tools built on the two most used native libraries, each written as the README shows a blocking
 * tool (`blocking: true` and nothing else about where it runs): an argon2id hash (an async N-API
 * addon working on libuv's pool) and a sharp blur (libvips working on threads of its own). The
 * `_thread` twins pin `isolation: 'thread'`, for the documented behaviour of an author who does.
 */
import argon2 from 'argon2';
import sharp, { type SharpOptions } from 'sharp';
import { defineTool } from '../../lib/tool.js';

const hashArgs = {
  type: 'object',
  properties: {
    text: { type: 'string' },
    memoryMb: { type: 'integer', minimum: 1 },
    passes: { type: 'integer', minimum: 1 },
  },
  required: ['text'],
} as const;

const blurArgs = {
  type: 'object',
  properties: { size: { type: 'integer', minimum: 16 }, sigma: { type: 'number', minimum: 0.3 } },
} as const;

/** argon2id with memory and time costs that make one hash take a while on a small machine. */
function hash({
  text,
  memoryMb,
  passes,
}: {
  text: string;
  memoryMb?: number;
  passes?: number;
}): Promise<string> {
  return argon2.hash(text, {
    type: argon2.argon2id,
    memoryCost: (memoryMb ?? 256) * 1024,
    timeCost: passes ?? 8,
  });
}

/** A noisy square image blurred hard: libvips' threads do the work, not JavaScript. */
async function blur({ size, sigma }: { size?: number; sigma?: number }): Promise<{ bytes: number }> {
  const side = size ?? 3000;
  const noise = { width: side, height: side, channels: 3, noise: { type: 'gaussian', mean: 128, sigma: 40 } };
  const out = await sharp({ create: noise } as SharpOptions)
    .blur(sigma ?? 60)
    .png()
    .toBuffer();
  return { bytes: out.length };
}

export const argonHash = defineTool({
  name: 'argon_hash',
  description: 'An argon2id hash of the text',
  inputSchema: hashArgs,
  blocking: true,
  module: import.meta.url,
  export: 'argonHash',
  handler: hash,
});

export const sharpBlur = defineTool({
  name: 'sharp_blur',
  description: 'Blurs a generated noise image and says how large its PNG is',
  inputSchema: blurArgs,
  blocking: true,
  module: import.meta.url,
  export: 'sharpBlur',
  handler: blur,
});

export const argonHashThread = defineTool({
  name: 'argon_hash_thread',
  description: 'argon_hash, pinned to a pool thread',
  inputSchema: hashArgs,
  blocking: true,
  module: import.meta.url,
  export: 'argonHashThread',
  isolation: 'thread',
  handler: hash,
});

export const sharpBlurThread = defineTool({
  name: 'sharp_blur_thread',
  description: 'sharp_blur, pinned to a pool thread',
  inputSchema: blurArgs,
  blocking: true,
  module: import.meta.url,
  export: 'sharpBlurThread',
  isolation: 'thread',
  handler: blur,
});
