/**
 * The exact (sealed) registration of a prompt that belongs to another server: what `server.mount`
 * publishes for an upstream's prompt. Like an exact tool (tools/exact-tool.ts), it is listed with
 * the upstream's descriptor verbatim and its `prompts/get` and `completion/complete` skip weft's
 * own checks (required arguments, string values, result shaping): the upstream's answer, errors
 * included, passes through. The registry makes one only when handed `EXACT_SEAL`, which no public
 * entry exports.
 */
import type { PromptContext } from './prompt-definition.js';

/** What the gateway hands `PromptRegistry.addExact`. */
export interface ExactPromptSpec {
  /** The published descriptor (the upstream's, under its published name). */
  readonly descriptor: { readonly name: string } & Record<string, unknown>;
  /**
   * `prompts/get` forwarded: the client's arguments as sent; resolves with the upstream's result.
   * The upstream's questions go to the client through `ctx` (elicit, sample, roots).
   */
  get(args: unknown, ctx: PromptContext): Promise<Record<string, unknown>>;
  /** `completion/complete` forwarded: the client's params as sent; resolves with the upstream's result. */
  complete(params: Record<string, unknown>, signal: AbortSignal): Promise<Record<string, unknown>>;
}
