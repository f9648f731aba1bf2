/**
 * How a blocking tool's handler is found in its module: the export named by `export` (default
 * `default`), holding either a tool definition or the handler function itself; failing that, for
 * `default`, any named export that is this tool's definition.
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
  const direct = asHandler(module[address.exportName], address.toolName);
  if (direct) return direct;
  if (address.exportName === 'default') {
    for (const value of Object.values(module)) {
      const named = asHandler(value, address.toolName);
      if (named && typeof value === 'object') return named;
    }
  }
  throw new Error(
    `Tool "${address.toolName}": ${address.moduleUrl} has no export "${address.exportName}" holding its handler. ` +
      'Export the tool definition (export default defineTool({...})) or the handler function.',
  );
}

function asHandler(value: unknown, toolName: string): Handler | undefined {
  if (typeof value === 'function') return value as Handler;
  if (typeof value === 'object' && value !== null) {
    const definition = value as { name?: unknown; handler?: unknown };
    if (
      typeof definition.handler === 'function' &&
      (definition.name === undefined || definition.name === toolName)
    ) {
      return definition.handler as Handler;
    }
  }
  return undefined;
}
