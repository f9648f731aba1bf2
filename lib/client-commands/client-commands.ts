/**
 * `weft list`, `weft call` and `weft inspect`: any MCP server, in either era, from the shell,
 * through weft's own client (`weft-mcp/client`).
 *
 *   weft list <target>                      tools, one a line (name and description)
 *   weft call <target> <tool> key=value ... the result: text as text, anything else as JSON
 *                                           (key=@file, key=@- and --args FILE|- read argument data
 *                                           from files and stdin: call-arguments.ts, argument-files.ts)
 *   weft inspect <target>                   server info, capabilities, tools with their schemas,
 *                                           resources, templates and prompts
 * Options: --protocol auto|legacy|modern (default auto: probe, then fall back), --header
 * 'Name: value' (HTTP, repeatable), --timeout MS, --json (call: the whole result as JSON),
 * --quiet (call: no progress line), --help (that command's usage; for call, the argument forms).
 *
 * A long call shows its progress as one line on stderr when that is a terminal (progress-line.ts);
 * the result goes to stdout. Ctrl-C cancels the call (the server is told, and a blocking tool's
 * thread is stopped) and exits 130. A result with `isError` exits 1 (exit codes: cli-failure.ts).
 */
import { parseArgs } from 'node:util';
import { CommandFailure, EXIT, UsageError } from '../cli/cli-failure.js';
import { connect, type McpClient } from '../client/index.js';
import { ArgumentFiles } from './argument-files.js';
import { callArguments } from './call-arguments.js';
import { clientTarget } from './client-target.js';
import { ProgressLine } from './progress-line.js';

export const CLIENT_USAGE = [
  'weft list <target> [--protocol auto|legacy|modern] [--header "Name: value"]',
  'weft call <target> <tool> [key=value | key:=json | key=@file ...] [--args FILE|-] [--json] [--timeout MS] [--quiet]',
  'weft inspect <target>          (target: http(s)://... | ws(s)://... | ./server.js | "command args")',
].join('\n       ');

/** What `weft call --help` adds to the usage: how words become arguments. */
const CALL_HELP = `
Arguments are typed by the tool's input schema:
  n=30              the number 30 for an integer or number property, the text "30" for a string
  flag=true         a boolean;  items='[1,2]'  JSON for an object or array property
  key:=json         JSON whatever the schema says
  key=@path         the value read from a file (key=@- reads stdin). For a string property: the
                    file's bytes in base64 when the property has contentEncoding "base64" or the file
                    is not UTF-8 text (an image, a PDF), its text otherwise. For any other property:
                    its text, typed as if written in place. key:=@path reads JSON from the file.
  key=\\@text        the literal text "@text"
  --args FILE|-     a JSON object of arguments (from a file, or - for stdin); key=value words override it
Options: --protocol auto|legacy|modern, --header "Name: value" (repeatable), --timeout MS (0: none),
  --json (the whole result as JSON), --quiet (no progress line). Ctrl-C cancels the call (exit 130);
  a result with isError exits 1, a mistyped argument 2.`;

type Out = (text: string) => void;

export async function runClientCommand(
  command: 'list' | 'call' | 'inspect',
  argv: string[],
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      protocol: { type: 'string', default: 'auto' },
      header: { type: 'string', multiple: true, default: [] },
      timeout: { type: 'string' },
      json: { type: 'boolean', default: false },
      quiet: { type: 'boolean', short: 'q', default: false },
      args: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    allowPositionals: true,
    strict: true,
  });
  const [target, ...rest] = positionals;
  if (values.help) {
    const usage = CLIENT_USAGE.split('\n')
      .find((line) => line.includes(`weft ${command} `))!
      .trim();
    process.stdout.write(`usage: ${usage}${command === 'call' ? CALL_HELP : ''}\n`);
    return EXIT.ok;
  }
  if (values.args !== undefined && command !== 'call') throw new UsageError('--args is for weft call');
  if (target === undefined)
    throw new UsageError(`weft ${command} needs a target (a URL, a server module or a command)`);
  if (command === 'call' && rest[0] === undefined)
    throw new UsageError('weft call needs the name of the tool to call');
  if (!['auto', 'legacy', 'modern'].includes(values.protocol)) {
    throw new UsageError(`--protocol is auto, legacy or modern, got "${values.protocol}"`);
  }
  const headers: Record<string, string> = {};
  for (const line of values.header) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new UsageError(`--header "${line}" is not "Name: value"`);
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  const timeoutMs = values.timeout === undefined ? 0 : Number(values.timeout);
  if (!(Number.isInteger(timeoutMs) && timeoutMs >= 0))
    throw new UsageError('--timeout must be milliseconds (0: none)');
  const where = clientTarget(target);
  let client: McpClient;
  try {
    client = await connect(where, {
      name: 'weft-cli',
      protocol: values.protocol as 'auto',
      timeoutMs,
      http: { headers },
    });
  } catch (error) {
    throw new CommandFailure(connectFailure(target, error));
  }
  // Piped into `head`: the reader left, which is no error of ours.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
  const out: Out = (text) => process.stdout.write(`${text}\n`);
  try {
    if (command === 'list') return await list(client, out);
    if (command === 'inspect') return await inspect(client, out);
    const options = { asJson: values.json, quiet: values.quiet, argsFile: values.args };
    return await call(client, rest[0]!, rest.slice(1), options, out);
  } finally {
    await client.close();
  }
}

async function list(client: McpClient, out: Out): Promise<number> {
  const tools = await client.listTools();
  const width = Math.max(0, ...tools.map((tool) => tool.name.length));
  for (const tool of tools) {
    const description = (tool.description ?? '').split('\n')[0];
    out(description ? `${tool.name.padEnd(width)}  ${description}` : tool.name);
  }
  return 0;
}

async function inspect(client: McpClient, out: Out): Promise<number> {
  const json = (value: unknown) => JSON.stringify(value, null, 2);
  const capabilities = client.serverCapabilities;
  out(`server: ${json(client.serverInfo)}`);
  out(`protocol: ${client.protocolVersion} (${client.era} era)`);
  if (client.instructions) out(`instructions: ${client.instructions}`);
  out(`capabilities: ${json(capabilities)}`);
  if (capabilities.tools) {
    const tools = await client.listTools();
    out(`\ntools (${tools.length}):`);
    for (const tool of tools) {
      out(`\n  ${tool.name}${tool.description ? `: ${tool.description}` : ''}`);
      out(indent(`input: ${json(tool.inputSchema)}`));
      if (tool.outputSchema) out(indent(`output: ${json(tool.outputSchema)}`));
      if (tool.annotations) out(indent(`annotations: ${json(tool.annotations)}`));
    }
  }
  if (capabilities.resources) {
    const resources = await client.listResources();
    out(`\nresources (${resources.length}):`);
    for (const resource of resources)
      out(`  ${resource.uri}  ${resource.mimeType ?? ''}  ${resource.name ?? ''}`.trimEnd());
    const templates = await client.listResourceTemplates();
    out(`\nresource templates (${templates.length}):`);
    for (const template of templates) out(`  ${template.uriTemplate}  ${template.name ?? ''}`.trimEnd());
  }
  if (capabilities.prompts) {
    const prompts = await client.listPrompts();
    out(`\nprompts (${prompts.length}):`);
    for (const prompt of prompts) {
      const args = ((prompt.arguments ?? []) as { name: string; required?: boolean }[])
        .map((arg) => (arg.required ? arg.name : `${arg.name}?`))
        .join(', ');
      out(`  ${prompt.name}(${args})${prompt.description ? `: ${prompt.description}` : ''}`);
    }
  }
  return 0;
}

async function call(
  client: McpClient,
  name: string,
  words: string[],
  { asJson, quiet, argsFile }: { asJson: boolean; quiet: boolean; argsFile: string | undefined },
  out: Out,
): Promise<number> {
  const tool = (await client.listTools()).find((each) => each.name === name);
  if (tool === undefined) {
    throw new CommandFailure(`the server has no tool "${name}" (weft list shows its tools)`, EXIT.mistyped);
  }
  let args: Record<string, unknown>;
  try {
    const files = await ArgumentFiles.open(words, argsFile);
    args = { ...files.argsObject(), ...callArguments(words, tool.inputSchema, (path) => files.read(path)) };
  } catch (error) {
    throw new CommandFailure(`${(error as Error).message} (tool "${name}")`, EXIT.mistyped);
  }
  const abort = new AbortController();
  const interrupt = () => abort.abort();
  process.once('SIGINT', interrupt);
  const progress = new ProgressLine(process.stderr, quiet);
  try {
    const result = await client.callTool(name, args, {
      signal: abort.signal,
      onprogress: (update) => progress.show(update),
    });
    progress.end();
    printResult(result, asJson, out);
    return result.isError === true ? EXIT.failed : EXIT.ok;
  } catch (error) {
    progress.end();
    if (abort.signal.aborted) {
      process.stderr.write(`weft: cancelled ${name}\n`);
      return EXIT.interrupted;
    }
    throw error;
  } finally {
    process.off('SIGINT', interrupt);
  }
}

function printResult(result: Record<string, unknown>, asJson: boolean, out: Out): void {
  const { resultType: _type, _meta, ...shown } = result;
  if (asJson) {
    out(JSON.stringify(shown, null, 2));
    return;
  }
  const content = (result.content ?? []) as { type: string; text?: string }[];
  const write = result.isError === true ? (text: string) => process.stderr.write(`${text}\n`) : out;
  for (const block of content) write(block.type === 'text' ? (block.text ?? '') : JSON.stringify(block));
  if (result.structuredContent !== undefined && content.length === 0) {
    out(JSON.stringify(result.structuredContent, null, 2));
  }
}

/** Why `target` could not be reached, in the words of the deepest cause that has a code. */
function connectFailure(target: string, error: unknown): string {
  let code: string | undefined;
  let deepest = '';
  for (let cause = error as { code?: unknown; cause?: unknown; message?: unknown } | undefined; cause; ) {
    if (typeof cause.code === 'string') code = cause.code;
    if (cause !== error && typeof cause.message === 'string') deepest = cause.message;
    cause = cause.cause as typeof cause;
  }
  if (code === 'ECONNREFUSED')
    return `nothing answers at ${target} (connection refused): is the server running there?`;
  if (code === 'ENOTFOUND') return `cannot find the host of ${target} (DNS): check the URL`;
  const why = deepest === '' ? '' : ` (${deepest})`;
  return `cannot connect to ${target}: ${(error as Error)?.message ?? String(error)}${why}`;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}
