/**
 * How a blocking tool's handler is found in its module: the export named by `export` (default
 * `default`), holding either this tool's definition or the handler function itself; failing that, for
 * `default`, any named export that is this tool's definition.
 *
 * A definition is recognised by its own shape (a name, an input schema, a handler), never by "an
 * object with a handler method": a server, a router or any class instance has methods too, and
 * calling one of them as a tool's handler fails far from the mistake.
 *
 * Pool workers use it to run a call; the server uses it at `listen()` so that a module that does not
 * export the handler is refused at start, not at the first call.
 */
import type { ToolContext } from './tool-context.js';

export type Handler = (args: unknown, ctx: ToolContext) => unknown;

export interface HandlerAddress {
  toolName: string;
  moduleUrl: string;
  exportName: string;
}

export function findHandler(module: Record<string, unknown>, address: HandlerAddress): Handler {
  const exported = module[address.exportName];
  if (typeof exported === 'function') return exported as Handler;
  const direct = definitionHandler(exported, address.toolName);
  if (direct) return direct;
  if (address.exportName === 'default') {
    for (const value of Object.values(module)) {
      const named = definitionHandler(value, address.toolName);
      if (named) return named;
    }
  }
  throw new Error(
    `Tool "${address.toolName}": ${address.moduleUrl} has no export "${address.exportName}" holding its handler` +
      `${describeExport(exported, address)}. ` +
      'Export the tool definition (export default defineTool({...})) or the handler function.',
  );
}

/** The handler of `value` if it is the definition of the tool named `toolName`. */
function definitionHandler(value: unknown, toolName: string): Handler | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const definition = value as { name?: unknown; inputSchema?: unknown; handler?: unknown };
  const isDefinition =
    definition.name === toolName &&
    typeof definition.inputSchema === 'object' &&
    definition.inputSchema !== null &&
    typeof definition.handler === 'function';
  return isDefinition ? (definition.handler as Handler) : undefined;
}

/** Says what the named export holds instead, when that helps to see the mistake. */
function describeExport(value: unknown, address: HandlerAddress): string {
  if (value === undefined) return '';
  if (typeof value !== 'object' || value === null) return ` (it holds a ${typeof value})`;
  const name = (value as { name?: unknown }).name;
  if (typeof name === 'string' && name !== address.toolName && 'handler' in value) {
    return ` (it holds the definition of tool "${name}"; set export to the one holding "${address.toolName}")`;
  }
  const kind = value.constructor?.name;
  return kind && kind !== 'Object'
    ? ` (it holds a ${kind}, not a tool definition)`
    : ' (it holds no tool definition)';
}
