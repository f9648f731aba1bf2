/**
 * The prompts a server publishes: checked when registered, listed in name order, fetched with
 * their arguments checked (a missing required argument is the client's mistake: -32602).
 */

import { readScopes } from '../auth/scopes.js';
import { ProtocolError } from '../protocol/protocol-error.js';
import { checkTags, TagFilter } from '../tag-filter.js';
import { EXACT_SEAL } from '../tools/exact-tool.js';
import type { ValueCheck } from '../tools/standard-schema-check.js';
import { isStandardSchema } from '../tools/standard-schema-check.js';
import type { ExactPromptSpec } from './exact-prompt.js';
import {
  type PromptContext,
  type PromptDefinition,
  type PromptResult,
  toPromptResult,
} from './prompt-definition.js';
import { promptArgumentsFromSchema } from './prompt-schema.js';

const PROMPT_KEYS = new Set([
  'name',
  'title',
  'description',
  'arguments',
  'icons',
  '_meta',
  'get',
  'tags',
  'scopes',
]);
const ARGUMENT_KEYS = new Set(['name', 'title', 'description', 'required', 'complete']);

/** A prompt as listed: its name, what prompts/list publishes, its tags and required scopes. */
export interface ListedPrompt {
  name: string;
  descriptor: object;
  tags: readonly string[] | undefined;
  scopes: readonly string[];
}

export class PromptRegistry {
  readonly #prompts = new Map<
    string,
    {
      definition: PromptDefinition;
      descriptor: object;
      scopes: readonly string[];
      /** Set only by the sealed registration (exact-prompt.ts). */
      exact?: ExactPromptSpec;
    }
  >();

  readonly #onChange: () => void;
  /** The schema checks of prompts whose arguments are a Standard Schema. */
  readonly #argumentChecks = new Map<string, ValueCheck>();
  #sorted: ListedPrompt[] | undefined;

  readonly #tags: TagFilter;
  /** The server's `scopesSupported`: a prompt may require only these (absent: any scope). */
  readonly #scopesSupported: readonly string[] | undefined;

  constructor(onChange: () => void, tags = new TagFilter(), scopesSupported?: readonly string[]) {
    this.#onChange = onChange;
    this.#tags = tags;
    this.#scopesSupported = scopesSupported;
  }

  /**
   * Publishes an upstream's prompt exactly as described (exact-prompt.ts): only with the seal. The
   * name must still be unique; nothing else of the descriptor is checked (the upstream owns it).
   */
  addExact(seal: typeof EXACT_SEAL, spec: ExactPromptSpec): void {
    if (seal !== EXACT_SEAL) throw new TypeError('an exact prompt can only be registered by server.mount');
    const { name } = spec.descriptor;
    if (typeof name !== 'string' || name === '') throw new TypeError('a mounted prompt needs a name');
    if (this.#prompts.has(name)) {
      throw new TypeError(
        `Mounted prompt "${name}": a prompt with this name is already registered; mount with a namespace`,
      );
    }
    const definition: PromptDefinition = {
      name,
      get: () => {
        throw new TypeError(`prompt "${name}" is mounted; prompts/get forwards it`);
      },
    };
    this.#prompts.set(name, { definition, descriptor: spec.descriptor, scopes: [], exact: spec });
    this.#sorted = undefined;
    this.#onChange();
  }

  /** The sealed spec of a mounted prompt by name, unless its tags hide it. */
  exactOf(name: string): ExactPromptSpec | undefined {
    const entry = this.#prompts.get(name);
    return entry && this.#tags.visible(entry.definition.tags) ? entry.exact : undefined;
  }

  /** The tag filter changed for `tag`: prompts carrying it appear or vanish (list_changed). */
  tagChanged(tag: string): void {
    if (![...this.#prompts.values()].some((entry) => entry.definition.tags?.includes(tag))) return;
    this.#sorted = undefined;
    this.#onChange();
  }

  get isEmpty(): boolean {
    return this.#prompts.size === 0;
  }

  add(given: PromptDefinition): void {
    const where = `prompt ${JSON.stringify((given as { name?: unknown })?.name)}`;
    if (typeof given !== 'object' || given === null) throw new TypeError('prompt: expected an object');
    // A Standard Schema for the arguments becomes the list it describes, and is kept for `get`.
    const fromSchema = isStandardSchema(given.arguments)
      ? promptArgumentsFromSchema(given.arguments, where)
      : undefined;
    const definition = fromSchema ? { ...given, arguments: fromSchema.arguments } : given;
    for (const key of Object.keys(definition)) {
      if (!PROMPT_KEYS.has(key)) {
        throw new TypeError(`${where}: unknown option "${key}". Known: ${[...PROMPT_KEYS].join(', ')}`);
      }
    }
    if (typeof definition.name !== 'string' || definition.name === '') {
      throw new TypeError(`${where}: name must be a non-empty string`);
    }
    if (this.#prompts.has(definition.name)) throw new TypeError(`${where} is already registered`);
    if (typeof definition.get !== 'function') {
      throw new TypeError(`${where}: get must be a function that returns the prompt's messages`);
    }
    checkTags(definition.tags, where);
    const scopes = readScopes(definition.scopes, this.#scopesSupported);
    if (!scopes.ok) throw new TypeError(`${where}: ${scopes.problem}`);
    const seen = new Set<string>();
    for (const argument of definition.arguments ?? []) {
      for (const key of Object.keys(argument)) {
        if (!ARGUMENT_KEYS.has(key)) throw new TypeError(`${where}: argument option "${key}" is unknown`);
      }
      if (typeof argument.name !== 'string' || argument.name === '' || seen.has(argument.name)) {
        throw new TypeError(`${where}: every argument needs a unique, non-empty name`);
      }
      seen.add(argument.name);
    }
    const { get: _get, tags: _tags, scopes: _scopes, ...published } = definition;
    const descriptor = {
      ...published,
      ...(definition.arguments
        ? { arguments: definition.arguments.map(({ complete: _complete, ...argument }) => argument) }
        : {}),
    };
    this.#prompts.set(definition.name, { definition, descriptor, scopes: scopes.scopes });
    if (fromSchema) this.#argumentChecks.set(definition.name, fromSchema.check);
    this.#sorted = undefined;
    this.#onChange();
  }

  remove(name: string): boolean {
    const removed = this.#prompts.delete(name);
    this.#argumentChecks.delete(name);
    if (removed) {
      this.#sorted = undefined;
      this.#onChange();
    }
    return removed;
  }

  sorted(): ListedPrompt[] {
    this.#sorted ??= [...this.#prompts.keys()]
      .filter((name) => this.#tags.visible(this.#prompts.get(name)!.definition.tags))
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
      .map((name) => {
        const { definition, descriptor, scopes } = this.#prompts.get(name)!;
        return { name, descriptor, tags: definition.tags, scopes };
      });
    return this.#sorted;
  }

  /** The scopes a prompts/get of `name` needs; undefined when no visible prompt has that name. */
  scopesOf(name: string): readonly string[] | undefined {
    const entry = this.#prompts.get(name);
    return entry && this.#tags.visible(entry.definition.tags) ? entry.scopes : undefined;
  }

  /** The prompt by name, unless its tags hide it. */
  definition(name: string): PromptDefinition | undefined {
    const definition = this.#prompts.get(name)?.definition;
    return definition && this.#tags.visible(definition.tags) ? definition : undefined;
  }

  async get(name: string, args: unknown, ctx: PromptContext): Promise<PromptResult> {
    const definition = this.definition(name);
    if (!definition) throw ProtocolError.invalidParams(`Unknown prompt: ${name}`);
    const exact = this.#prompts.get(name)?.exact;
    if (exact) return (await exact.get(args, ctx)) as unknown as PromptResult;
    const given = args ?? {};
    if (typeof given !== 'object' || Array.isArray(given)) {
      throw ProtocolError.invalidParams(`prompts/get: arguments must be an object of strings`);
    }
    const values: Record<string, string> = {};
    for (const [key, value] of Object.entries(given)) {
      if (typeof value !== 'string') {
        throw ProtocolError.invalidParams(`Prompt "${name}": argument ${key} must be a string`);
      }
      values[key] = value;
    }
    const missing = (definition.arguments ?? []).filter((a) => a.required && values[a.name] === undefined);
    if (missing.length > 0) {
      throw ProtocolError.invalidParams(
        `Prompt "${name}" needs argument(s) ${missing.map((a) => a.name).join(', ')}`,
      );
    }
    const check = this.#argumentChecks.get(name);
    if (!check) return toPromptResult(name, await definition.get(values, ctx));
    const checked = await check(values);
    if (!checked.ok)
      throw ProtocolError.invalidParams(`Invalid arguments for prompt "${name}": ${checked.problem}`);
    return toPromptResult(name, await definition.get(checked.value as Record<string, string>, ctx));
  }
}
