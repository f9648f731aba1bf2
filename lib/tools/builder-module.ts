/**
 * Which of the user's modules are building a server: the file: URLs on the stack when the server is
 * constructed, minus weft's own. A blocking tool whose `module` is one of them would make every pool
 * worker import the server's module, building (and perhaps starting) a second server in each thread;
 * the registry refuses it, with a message that says to move the tool into a module of its own.
 */

/** weft's own directory (lib/ in dist or in the sources): its frames are never the user's. */
const OWN_ROOT = new URL('../', import.meta.url).href;

const FRAME_URL = /(file:\/\/[^\s)]+?):\d+:\d+\)?$/;

/** The file: URLs of the user's modules on the current stack, innermost first, without duplicates. */
export function builderModules(): string[] {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 50;
  const stack = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  const found: string[] = [];
  for (const line of stack.split('\n')) {
    const url = FRAME_URL.exec(line.trim())?.[1];
    if (url === undefined || url.startsWith(OWN_ROOT) || found.includes(url)) continue;
    found.push(url);
  }
  return found;
}

/** The message for a blocking tool defined in the module that builds the server. */
export function builderModuleMessage(toolName: string, moduleUrl: string): string {
  return (
    `Tool "${toolName}": a blocking tool cannot be defined in the module that builds the server ` +
    `(${moduleUrl}): each pool worker imports the tool's module and would build the server again. ` +
    'Move the tool into a module of its own (export default defineTool({ ..., blocking: true, ' +
    'module: import.meta.url })) and import it from the server module.'
  );
}
