/**
 * The resources and resource templates a server publishes.
 *
 * Like the tool registry, it refuses mistakes when something is registered (a duplicate URI, a
 * template it cannot match, an unknown option, a missing reader), so a server that starts can
 * answer every listing and read. Listings are ordered by URI (resources) and by template text
 * (templates): unique keys give the stable total order that cursor pagination needs.
 *
 * A read tries the exact URIs first, then the templates in template order; the first match wins.
 * A URI longer than MAX_URI_LENGTH is refused (-32602) before any template looks at it.
 */

import { readScopes } from '../auth/scopes.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { ProtocolError } from '../protocol/protocol-error.js';
import { checkTags, TagFilter } from '../tag-filter.js';
import { EXACT_SEAL } from '../tools/exact-tool.js';
import type { ExactResourceSpec, ExactTemplateSpec } from './exact-resource.js';
import {
  type ReadContext,
  type ResourceContents,
  type ResourceDefinition,
  type ResourceTemplateDefinition,
  toContents,
} from './resource-definition.js';
import { UriTemplate } from './uri-template.js';

/** MCP's legacy code for "no resource with that URI" (the spec's -32002). */
export const RESOURCE_NOT_FOUND = ErrorCode.ResourceNotFound;

const COMMON_KEYS = [
  'name',
  'title',
  'description',
  'mimeType',
  'annotations',
  'icons',
  '_meta',
  'read',
  'tags',
  'scopes',
];
const RESOURCE_KEYS = new Set([...COMMON_KEYS, 'uri', 'size']);
const TEMPLATE_KEYS = new Set([...COMMON_KEYS, 'uriTemplate', 'complete']);

/** The longest URI a client may name (resources/read, subscribe, listen), in characters. */
export const MAX_URI_LENGTH = 8192;

function checkUriLength(uri: string): void {
  if (uri.length > MAX_URI_LENGTH) {
    throw ProtocolError.invalidParams(
      `The URI is ${uri.length} characters long; a resource URI may be at most ${MAX_URI_LENGTH}`,
      { maxUriLength: MAX_URI_LENGTH },
    );
  }
}

export interface RegisteredTemplate {
  readonly definition: ResourceTemplateDefinition;
  /** The variables of a URI this template answers, else undefined. */
  readonly match: (uri: string) => Record<string, string> | undefined;
  readonly descriptor: Record<string, unknown>;
  /** The OAuth scopes a reader needs, all of them (empty: none). */
  readonly scopes: readonly string[];
  /** Set only by the sealed registration (exact-resource.ts). */
  readonly exact?: ExactTemplateSpec;
}

interface RegisteredResource {
  readonly definition: ResourceDefinition;
  readonly descriptor: object;
  readonly scopes: readonly string[];
  /** Set only by the sealed registration (exact-resource.ts). */
  readonly exact?: ExactResourceSpec;
}

const mountedReader = (what: string) => () => {
  throw new TypeError(`${what} is mounted; resources/read forwards it`);
};

export class ResourceRegistry {
  readonly #resources = new Map<string, RegisteredResource>();
  readonly #templates = new Map<string, RegisteredTemplate>();
  readonly #onChange: () => void;
  #sortedResources: string[] | undefined;
  #sortedTemplates: string[] | undefined;

  readonly #tags: TagFilter;
  /** The server's `scopesSupported`: a resource may require only these (absent: any scope). */
  readonly #scopesSupported: readonly string[] | undefined;

  constructor(onChange: () => void, tags = new TagFilter(), scopesSupported?: readonly string[]) {
    this.#onChange = onChange;
    this.#tags = tags;
    this.#scopesSupported = scopesSupported;
  }

  /** The tag filter changed for `tag`: resources carrying it appear or vanish (list_changed). */
  tagChanged(tag: string): void {
    const entries = [...this.#resources.values(), ...this.#templates.values()];
    if (!entries.some((entry) => entry.definition.tags?.includes(tag))) return;
    this.#sortedResources = undefined;
    this.#sortedTemplates = undefined;
    this.#onChange();
  }

  get isEmpty(): boolean {
    return this.#resources.size === 0 && this.#templates.size === 0;
  }

  add(definition: ResourceDefinition): void {
    const where = `resource ${JSON.stringify((definition as { uri?: unknown })?.uri)}`;
    const scopes = checkCommon(definition, RESOURCE_KEYS, where, this.#scopesSupported);
    if (typeof definition.uri !== 'string' || !URL.canParse(definition.uri)) {
      throw new TypeError(`${where}: uri must be an absolute URI such as app://config or file:///notes.txt`);
    }
    if (this.#resources.has(definition.uri)) {
      throw new TypeError(`${where} is already registered; each resource needs its own URI`);
    }
    this.#resources.set(definition.uri, {
      definition,
      descriptor: describe(definition, ['read', 'tags', 'scopes']),
      scopes,
    });
    this.#sortedResources = undefined;
    this.#onChange();
  }

  addTemplate(definition: ResourceTemplateDefinition): void {
    const where = `resource template ${JSON.stringify((definition as { uriTemplate?: unknown })?.uriTemplate)}`;
    const scopes = checkCommon(definition, TEMPLATE_KEYS, where, this.#scopesSupported);
    if (typeof definition.uriTemplate !== 'string')
      throw new TypeError(`${where}: uriTemplate must be a string`);
    if (this.#templates.has(definition.uriTemplate)) throw new TypeError(`${where} is already registered`);
    const template = new UriTemplate(definition.uriTemplate);
    for (const [variable, completer] of Object.entries(definition.complete ?? {})) {
      if (!template.variables.includes(variable)) {
        throw new TypeError(`${where}: complete.${variable} names no variable of the template`);
      }
      if (typeof completer !== 'function')
        throw new TypeError(`${where}: complete.${variable} must be a function`);
    }
    this.#templates.set(definition.uriTemplate, {
      definition,
      match: (uri) => template.match(uri),
      descriptor: describe(definition, ['read', 'complete', 'tags', 'scopes']),
      scopes,
    });
    this.#sortedTemplates = undefined;
    this.#onChange();
  }

  /**
   * Publishes an upstream's resource exactly as described (exact-resource.ts): only with the seal.
   * The URI must be unique; the rest of the descriptor is the upstream's.
   */
  addExact(seal: typeof EXACT_SEAL, spec: ExactResourceSpec): void {
    if (seal !== EXACT_SEAL) throw new TypeError('an exact resource can only be registered by server.mount');
    const { uri } = spec.descriptor;
    if (typeof uri !== 'string' || uri === '') throw new TypeError('a mounted resource needs a uri');
    if (this.#resources.has(uri)) {
      throw new TypeError(
        `Mounted resource ${uri}: a resource with this URI is already registered; mount with a namespace`,
      );
    }
    const name = typeof spec.descriptor.name === 'string' ? spec.descriptor.name : uri;
    const definition: ResourceDefinition = { uri, name, read: mountedReader(uri) };
    this.#resources.set(uri, { definition, descriptor: spec.descriptor, scopes: [], exact: spec });
    this.#sortedResources = undefined;
    this.#onChange();
  }

  /**
   * Publishes an upstream's resource template exactly as described: only with the seal. It answers
   * the URIs its simple `{var}` form matches; a richer RFC 6570 template (which weft does not match
   * itself) answers every URI that starts with its text before the first `{`, and the upstream
   * decides (resource-not-found included).
   */
  addExactTemplate(seal: typeof EXACT_SEAL, spec: ExactTemplateSpec): void {
    if (seal !== EXACT_SEAL) throw new TypeError('an exact template can only be registered by server.mount');
    const { uriTemplate } = spec.descriptor;
    if (typeof uriTemplate !== 'string' || uriTemplate === '')
      throw new TypeError('a mounted resource template needs a uriTemplate');
    if (this.#templates.has(uriTemplate)) {
      throw new TypeError(
        `Mounted resource template ${uriTemplate} is already registered; mount with a namespace`,
      );
    }
    let match: RegisteredTemplate['match'];
    try {
      const template = new UriTemplate(uriTemplate);
      match = (uri) => template.match(uri);
    } catch {
      const head = uriTemplate.slice(0, uriTemplate.indexOf('{'));
      match = (uri) => (head !== '' && uri.startsWith(head) ? {} : undefined);
    }
    const name = typeof spec.descriptor.name === 'string' ? spec.descriptor.name : uriTemplate;
    const definition: ResourceTemplateDefinition = { uriTemplate, name, read: mountedReader(uriTemplate) };
    this.#templates.set(uriTemplate, {
      definition,
      match,
      descriptor: spec.descriptor,
      scopes: [],
      exact: spec,
    });
    this.#sortedTemplates = undefined;
    this.#onChange();
  }

  /**
   * A client subscribed to `uri` (resources/subscribe, or a listen stream naming it): when a
   * mounted resource or template answers it, the upstream is subscribed too.
   */
  watch(uri: string): () => void {
    return this.#answering(uri)?.watch(uri) ?? (() => {});
  }

  /** The mounted source that would answer `uri`, if a mounted one would. */
  #answering(uri: string): ExactResourceSpec | ExactTemplateSpec | undefined {
    const exact = this.#exact(uri);
    if (exact) return exact.exact;
    for (const { key } of this.sortedTemplates()) {
      const entry = this.#templates.get(key)!;
      if (entry.match(uri) !== undefined) return entry.exact;
    }
    return undefined;
  }

  remove(uri: string): boolean {
    const removed = this.#resources.delete(uri) || this.#templates.delete(uri);
    if (removed) {
      this.#sortedResources = undefined;
      this.#sortedTemplates = undefined;
      this.#onChange();
    }
    return removed;
  }

  /** Resource descriptors keyed by URI, in URI order. */
  sortedResources(): {
    key: string;
    descriptor: object;
    tags: readonly string[] | undefined;
    scopes: readonly string[];
  }[] {
    this.#sortedResources ??= [...this.#resources.keys()]
      .filter((key) => this.#tags.visible(this.#resources.get(key)!.definition.tags))
      .sort(byCodeUnit);
    return this.#sortedResources.map((key) => {
      const { definition, descriptor, scopes } = this.#resources.get(key)!;
      return { key, descriptor, tags: definition.tags, scopes };
    });
  }

  sortedTemplates(): { key: string; descriptor: object; scopes: readonly string[] }[] {
    this.#sortedTemplates ??= [...this.#templates.keys()]
      .filter((key) => this.#tags.visible(this.#templates.get(key)!.definition.tags))
      .sort(byCodeUnit);
    return this.#sortedTemplates.map((key) => {
      const { descriptor, scopes } = this.#templates.get(key)!;
      return { key, descriptor, scopes };
    });
  }

  /**
   * The scopes a read of `uri` needs: those of the resource or template that would answer it
   * (exact URIs first, then templates in order, as `read` resolves); undefined when none would.
   */
  scopesOf(uri: string): readonly string[] | undefined {
    const exact = this.#exact(uri);
    if (exact) return exact.scopes;
    for (const { key } of this.sortedTemplates()) {
      const entry = this.#templates.get(key)!;
      if (entry.match(uri) !== undefined) return entry.scopes;
    }
    return undefined;
  }

  /** The declared mimeType of the resource registered at exactly this URI (templates not included). */
  mimeTypeOf(uri: string): string | undefined {
    return this.#resources.get(uri)?.definition.mimeType;
  }

  template(uriTemplate: string): RegisteredTemplate | undefined {
    const entry = this.#templates.get(uriTemplate);
    return entry && this.#tags.visible(entry.definition.tags) ? entry : undefined;
  }

  has(uri: string): boolean {
    checkUriLength(uri);
    if (this.#exact(uri)) return true;
    return this.sortedTemplates().some(({ key }) => this.#templates.get(key)!.match(uri) !== undefined);
  }

  /** The resource with exactly this URI, unless its tags hide it. */
  #exact(uri: string): RegisteredResource | undefined {
    const entry = this.#resources.get(uri);
    return entry && this.#tags.visible(entry.definition.tags) ? entry : undefined;
  }

  async read(uri: string, ctx: ReadContext): Promise<ResourceContents[]> {
    checkUriLength(uri);
    const exact = this.#exact(uri);
    if (exact?.exact) return exact.exact.read(uri, ctx);
    if (exact) return toContents(uri, exact.definition.mimeType, await exact.definition.read(uri, ctx));
    for (const key of this.sortedTemplates().map((entry) => entry.key)) {
      const entry = this.#templates.get(key)!;
      const variables = entry.match(uri);
      if (variables && entry.exact) return entry.exact.read(uri, ctx);
      if (variables) {
        return toContents(uri, entry.definition.mimeType, await entry.definition.read(uri, variables, ctx));
      }
    }
    throw new ProtocolError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, { uri });
  }
}

/** Checks what resources and templates share; returns the checked `scopes`. */
function checkCommon(
  definition: object,
  keys: ReadonlySet<string>,
  where: string,
  scopesSupported: readonly string[] | undefined,
): readonly string[] {
  if (typeof definition !== 'object' || definition === null)
    throw new TypeError(`${where}: expected an object`);
  for (const key of Object.keys(definition)) {
    if (!keys.has(key))
      throw new TypeError(`${where}: unknown option "${key}". Known: ${[...keys].join(', ')}`);
  }
  const { name, read } = definition as { name?: unknown; read?: unknown };
  if (typeof name !== 'string' || name === '')
    throw new TypeError(`${where}: name must be a non-empty string`);
  if (typeof read !== 'function')
    throw new TypeError(`${where}: read must be a function that returns its contents`);
  checkTags((definition as { tags?: unknown }).tags, where);
  const scopes = readScopes((definition as { scopes?: unknown }).scopes, scopesSupported);
  if (!scopes.ok) throw new TypeError(`${where}: ${scopes.problem}`);
  return scopes.scopes;
}

function describe(definition: object, omit: string[]): Record<string, unknown> {
  const descriptor: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(definition)) {
    if (!omit.includes(key) && value !== undefined) descriptor[key] = value;
  }
  return descriptor;
}

function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
