/**
 * The set of tools a server offers: registration, lookup, and the name-ordered listing.
 *
 * What one tool must be is checked in tool-checks.ts, when it is registered; this file owns the
 * set: names unique, the sealed exact registration that only `server.mount` can make
 * (exact-tool.ts), the tag filter, and the listing, kept sorted by name (code-unit order) because
 * cursor pagination is only sound over a stable total order.
 */

import { findHeaderParams } from '../protocol/header-param-schema.js';
import { TagFilter } from '../tag-filter.js';
import { builderModuleMessage } from './builder-module.js';
import { EXACT_SEAL, type ExactToolSpec } from './exact-tool.js';
import { findHandler } from './handler-export.js';
import type { RegisteredTool } from './registered-tool.js';
import type { SchemaCompiler } from './schema-compiler.js';
import { checkTool, TOOL_NAME, type ToolCheckSettings, ToolRegistrationError } from './tool-checks.js';
import type { ToolDefinition } from './tool-definition.js';

export { ToolRegistrationError } from './tool-checks.js';

export class ToolRegistry {
  readonly #tools = new Map<string, RegisteredTool>();
  #sorted: RegisteredTool[] | undefined;
  readonly #settings: ToolCheckSettings;
  readonly #onChange: () => void;
  readonly #tags: TagFilter;
  readonly #builderModules: readonly string[];

  constructor(
    compiler: SchemaCompiler,
    onChange: () => void = () => {},
    tags = new TagFilter(),
    options: {
      fleetConfigured?: boolean;
      scopesSupported?: readonly string[];
      /** The user's modules that built this server (builder-module.ts): no blocking tool may live there. */
      builderModules?: readonly string[];
    } = {},
  ) {
    this.#builderModules = options.builderModules ?? [];
    this.#settings = {
      compiler,
      fleetConfigured: options.fleetConfigured ?? false,
      scopesSupported: options.scopesSupported,
    };
    this.#onChange = onChange;
    this.#tags = tags;
  }

  /** The tag filter changed for `tag`: tools carrying it appear or vanish (list_changed). */
  tagChanged(tag: string): void {
    if (![...this.#tools.values()].some((tool) => tool.tags?.includes(tag))) return;
    this.#sorted = undefined;
    this.#onChange();
  }

  add(definition: ToolDefinition<never, never>): RegisteredTool {
    // Checked first, as a name the user may have reused is the likeliest mistake of all.
    const name = (definition as { name?: unknown } | null)?.name;
    if (typeof name === 'string' && this.#tools.has(name)) {
      throw new ToolRegistrationError(
        `Tool "${name}": a tool with this name is already registered; tool names must be unique`,
      );
    }
    const tool = checkTool(definition as unknown as ToolDefinition, this.#settings);
    if (tool.blocking && this.#builderModules.includes(tool.moduleUrl)) {
      throw new ToolRegistrationError(builderModuleMessage(tool.name, tool.moduleUrl));
    }
    this.#tools.set(tool.name, tool);
    this.#sorted = undefined;
    this.#onChange();
    return tool;
  }

  /**
   * Registers an upstream's tool exactly as described (exact-tool.ts): only with the seal, which no
   * public entry exports. The name rules and uniqueness still apply, and so do its x-mcp-header
   * annotations, which weft's HTTP transport checks against the body as for any tool.
   */
  addExact(seal: typeof EXACT_SEAL, spec: ExactToolSpec): RegisteredTool {
    if (seal !== EXACT_SEAL)
      throw new ToolRegistrationError('an exact tool can only be registered by server.mount');
    const { descriptor } = spec;
    const fail = (message: string): never => {
      throw new ToolRegistrationError(`Mounted tool "${descriptor.name}": ${message}`);
    };
    if (typeof descriptor.name !== 'string' || !TOOL_NAME.test(descriptor.name)) {
      fail('the name must be 1 to 128 characters of A-Z, a-z, 0-9, "_", "-" or "."');
    }
    if (this.#tools.has(descriptor.name))
      fail('a tool with this name is already registered; mount with a namespace');
    const inputSchema =
      typeof descriptor.inputSchema === 'object' && descriptor.inputSchema !== null
        ? descriptor.inputSchema
        : {};
    const tool: RegisteredTool = {
      name: descriptor.name,
      definition: { name: descriptor.name, inputSchema, handler: () => undefined } as never,
      descriptor,
      tags: spec.tags,
      checkArguments: (value: unknown) => ({ ok: true, value }),
      headerParams: findHeaderParams(inputSchema, fail),
      checkOutput: undefined,
      timeoutMs: 0,
      concurrency: Number.POSITIVE_INFINITY,
      task: undefined,
      beforeTask: undefined,
      structuredFailure: undefined,
      blocking: false,
      handler: () => undefined,
      // A mounted tool asks for no scope of its own and has no per-caller limits of its own: the
      // server's limits apply, and the upstream does its own authorization.
      scopes: [],
      limits: undefined,
      exact: spec.call,
    };
    this.#tools.set(tool.name, tool);
    this.#sorted = undefined;
    this.#onChange();
    return tool;
  }

  remove(name: string): boolean {
    const removed = this.#tools.delete(name);
    if (removed) {
      this.#sorted = undefined;
      this.#onChange();
    }
    return removed;
  }

  /**
   * Imports every blocking tool's module and checks that it exports the tool's handler, so that a
   * wrong `module` or `export` is refused when the server starts rather than at the first call.
   */
  async verifyBlockingModules(): Promise<void> {
    const problems: string[] = [];
    for (const registered of this.#tools.values()) {
      const tool = registered.blocking ? registered : registered.forwardTo;
      if (tool === undefined) continue;
      try {
        const module = (await import(tool.moduleUrl)) as Record<string, unknown>;
        findHandler(module, {
          toolName: tool.handlerName,
          moduleUrl: tool.moduleUrl,
          exportName: tool.exportName,
        });
      } catch (error) {
        const message = (error as Error)?.message ?? String(error);
        problems.push(
          message.startsWith(`Tool "${tool.name}"`) ? message : `Tool "${tool.name}": ${message}`,
        );
      }
    }
    if (problems.length > 0) throw new ToolRegistrationError(problems.join('\n'));
  }

  /** The tool by name, unless its tags hide it. */
  get(name: string): RegisteredTool | undefined {
    const tool = this.#tools.get(name);
    return tool === undefined || this.#tags.open || this.#tags.visible(tool.tags) ? tool : undefined;
  }

  get size(): number {
    return this.#tools.size;
  }

  /** All tools their tags let through, in name order; the array is cached until the set changes. */
  sorted(): readonly RegisteredTool[] {
    if (this.#sorted === undefined) {
      this.#sorted = [...this.#tools.values()]
        .filter((tool) => this.#tags.visible(tool.tags))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    }
    return this.#sorted;
  }
}
