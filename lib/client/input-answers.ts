/**
 * How the client answers the server's questions: elicitation (ask the user), sampling (ask the
 * model), roots (which folders the client exposes). The same handlers serve both eras: the legacy
 * era sends them as server-to-client requests, the modern era as an `input_required` result's
 * `inputRequests` (MRTR), which the client answers in `inputResponses` on its retry. Which handlers
 * are registered decides the client capabilities declared, so a server never asks for what the
 * client cannot answer.
 */
import { McpError, UnansweredInputError } from './client-errors.js';

export type ElicitResult = { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> };
export type Root = { uri: string; name?: string };

export interface InputHandlers {
  /** `elicitation/create` params (form: message + requestedSchema; url mode: mode "url", url). */
  onElicitation?: (params: Record<string, unknown>) => ElicitResult | Promise<ElicitResult>;
  /** `sampling/createMessage` params; answer a CreateMessageResult ({role, content, model, ...}). */
  onSampling?: (
    params: Record<string, unknown>,
  ) => Record<string, unknown> | Promise<Record<string, unknown>>;
  /** The roots to report, as a list or a function giving it. */
  roots?: readonly Root[] | (() => readonly Root[] | Promise<readonly Root[]>);
}

/** The client capabilities these handlers support (the same object in both eras). */
export function capabilitiesFor(handlers: InputHandlers): Record<string, unknown> {
  const capabilities: Record<string, unknown> = {};
  if (handlers.onElicitation) capabilities.elicitation = { form: {}, url: {} };
  if (handlers.onSampling) capabilities.sampling = {};
  if (handlers.roots) capabilities.roots = { listChanged: true };
  return capabilities;
}

/** The answer to one question; throws UnansweredInputError when no handler is registered for it. */
export async function answerQuestion(
  handlers: InputHandlers,
  method: string,
  params: Record<string, unknown> | undefined,
): Promise<Record<string, unknown>> {
  switch (method) {
    case 'elicitation/create':
      if (!handlers.onElicitation) throw new UnansweredInputError(method);
      return { ...(await handlers.onElicitation(params ?? {})) };
    case 'sampling/createMessage':
      if (!handlers.onSampling) throw new UnansweredInputError(method);
      return handlers.onSampling(params ?? {});
    case 'roots/list': {
      if (!handlers.roots) throw new UnansweredInputError(method);
      const roots = typeof handlers.roots === 'function' ? await handlers.roots() : handlers.roots;
      return { roots: [...roots] };
    }
    case 'ping':
      return {};
    default:
      throw new McpError(-32601, `the client has no method ${method}`);
  }
}

/** Answers every question of an `input_required` result (or a task's), keyed as they were asked. */
export async function answerInputRequests(
  handlers: InputHandlers,
  inputRequests: unknown,
): Promise<Record<string, unknown>> {
  const answers: Record<string, unknown> = {};
  if (typeof inputRequests !== 'object' || inputRequests === null) return answers;
  for (const [key, request] of Object.entries(inputRequests as Record<string, unknown>)) {
    const { method, params } = (request ?? {}) as { method?: unknown; params?: Record<string, unknown> };
    if (typeof method !== 'string') continue;
    answers[key] = await answerQuestion(handlers, method, params);
  }
  return answers;
}
