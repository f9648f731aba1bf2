/**
 * Which tools a `weft worker` runs: the same definitions the server registers, read from the same
 * module, so the two sides cannot drift apart. The module is either the server module itself (a
 * default export that is an McpServer, or a function returning one, as for `weft serve`), or a
 * module of tool definitions (`export default [fibTool, hashTool]`, or each as a named export).
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { McpServer, toolsOf } from '../server.js';
import { TagFilter } from '../tag-filter.js';
import type { RegisteredTool } from '../tools/registered-tool.js';
import { SchemaCompiler } from '../tools/schema-compiler.js';
import type { ToolDefinition } from '../tools/tool-definition.js';
import { ToolRegistry } from '../tools/tool-registry.js';

export async function loadWorkerTools(file: string): Promise<readonly RegisteredTool[]> {
  const module = (await import(pathToFileURL(resolve(file)).href)) as Record<string, unknown>;
  const main =
    typeof module.default === 'function' ? await (module.default as () => unknown)() : module.default;
  const registry = main instanceof McpServer ? toolsOf(main) : definitionsOf(module, main);
  await registry.verifyBlockingModules();
  // A transformed tool's custom handler runs on the replica; its forward's pooled original runs here.
  const blocking = registry
    .sorted()
    .flatMap((tool) => (tool.blocking ? [tool] : tool.forwardTo ? [tool.forwardTo] : []))
    .filter((tool, index, all) => all.findIndex((other) => other.name === tool.name) === index);
  if (blocking.length === 0) {
    throw new TypeError(
      `${file} exports no blocking tool: export the server (an McpServer, or a function returning one) with blocking tools, or blocking tool definitions (defineTool({ blocking: true, ... })); a fleet worker runs blocking tools only`,
    );
  }
  return blocking;
}

/** A registry of the blocking definitions a module exports (`default` may be an array of them). */
function definitionsOf(module: Record<string, unknown>, main: unknown): ToolRegistry {
  const candidates = [...(Array.isArray(main) ? main : [main]), ...Object.values(module)];
  const registry = new ToolRegistry(new SchemaCompiler(), () => {}, new TagFilter(), {
    fleetConfigured: true,
  });
  for (const definition of new Set(candidates.filter(isBlockingDefinition))) {
    registry.add(definition as ToolDefinition<never, never>);
  }
  return registry;
}

function isBlockingDefinition(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { blocking?: unknown }).blocking === true &&
    typeof (value as { name?: unknown }).name === 'string'
  );
}
