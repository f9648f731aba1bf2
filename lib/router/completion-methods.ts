/**
 * `completion/complete`: suggestions for a prompt argument or a resource-template variable.
 *
 * A reference to something unknown is the client's mistake (-32602); an argument without a
 * completer simply has no suggestions. At most 100 values go out, as the spec requires, with
 * `total` and `hasMore` telling the client there were more. Completing needs the scopes of the
 * prompt or template it completes for (-32012 otherwise): suggestions can tell as much as the
 * primitive itself. A mounted prompt or template is completed by its upstream (lib/gateway/),
 * whose answer is sent as it is.
 */
import type { PromptRegistry } from '../prompts/prompt-registry.js';
import { ProtocolError } from '../protocol/protocol-error.js';
import type { Completer } from '../resources/resource-definition.js';
import type { ResourceRegistry } from '../resources/resource-registry.js';
import { asCancellable } from './resource-methods.js';
import type { Router } from './router.js';
import { requireScopes } from './scope-check.js';

const MAX_VALUES = 100;

export function addCompletionMethods(
  router: Router,
  registries: { prompts: PromptRegistry; resources: ResourceRegistry },
): void {
  router.method('completion/complete', async (ctx) => {
    const { params, scope } = ctx;
    const ref = params.ref as { type?: unknown; name?: unknown; uri?: unknown } | undefined;
    // A mounted prompt or template: the upstream completes, and its answer passes through.
    const mounted =
      ref?.type === 'ref/prompt' && typeof ref.name === 'string'
        ? registries.prompts.exactOf(ref.name)
        : ref?.type === 'ref/resource' && typeof ref.uri === 'string'
          ? registries.resources.template(ref.uri)?.exact
          : undefined;
    if (mounted) return asCancellable(ctx, (signal) => mounted.complete(params, signal));
    const argument = params.argument as { name?: unknown; value?: unknown } | undefined;
    if (typeof argument?.name !== 'string' || typeof argument.value !== 'string') {
      throw ProtocolError.invalidParams('completion/complete needs argument: { name, value } (strings)');
    }
    const { completer, scopes, what } = findCompleter(ref, argument.name, registries);
    if (scopes.length > 0) requireScopes(scope, scopes, what);
    const context = (params.context as { arguments?: Record<string, string> } | undefined)?.arguments ?? {};
    const values = completer ? await completer(argument.value, { arguments: context }) : [];
    if (!Array.isArray(values) || values.some((value) => typeof value !== 'string')) {
      throw new TypeError(`The completer of ${argument.name} must return an array of strings`);
    }
    const completion: { values: string[]; total?: number; hasMore?: boolean } = {
      values: values.slice(0, MAX_VALUES),
    };
    if (values.length > MAX_VALUES) {
      completion.total = values.length;
      completion.hasMore = true;
    }
    return { completion };
  });
}

/** The completer for an argument of what `ref` names, with the scopes that primitive requires. */
function findCompleter(
  ref: { type?: unknown; name?: unknown; uri?: unknown } | undefined,
  argumentName: string,
  registries: { prompts: PromptRegistry; resources: ResourceRegistry },
): { completer: Completer | undefined; scopes: readonly string[]; what: string } {
  if (ref?.type === 'ref/prompt' && typeof ref.name === 'string') {
    const prompt = registries.prompts.definition(ref.name);
    if (!prompt) throw ProtocolError.invalidParams(`Unknown prompt: ${ref.name}`);
    return {
      completer: prompt.arguments?.find((a) => a.name === argumentName)?.complete,
      scopes: registries.prompts.scopesOf(ref.name) ?? [],
      what: `prompt "${ref.name}"`,
    };
  }
  if (ref?.type === 'ref/resource' && typeof ref.uri === 'string') {
    const template = registries.resources.template(ref.uri);
    if (!template) throw ProtocolError.invalidParams(`Unknown resource template: ${ref.uri}`);
    return {
      completer: template.definition.complete?.[argumentName],
      scopes: template.scopes,
      what: `resource template ${ref.uri}`,
    };
  }
  throw ProtocolError.invalidParams(
    'completion/complete needs ref: { type: "ref/prompt", name } or { type: "ref/resource", uri }',
  );
}
