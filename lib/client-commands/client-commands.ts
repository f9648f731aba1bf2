/**
 * `weft list`, `weft call` and `weft inspect`: any MCP server, in either era, from the shell,
 * through weft's own client (`weft/client`).
 *
 *   weft list <target>                      tools, one a line (name and description)
 *   weft call <target> <tool> key=value ... the result: text as text, anything else as JSON
 *   weft inspect <target>                   server info, capabilities, tools with their schemas,
 *                                           resources, templates and prompts
 * Options: --protocol auto|legacy|modern (default auto: probe, then fall back), --header
 * 'Name: value' (HTTP, repeatable), --timeout MS, --json (call: the whole result as JSON).
 *
 * A long call prints its progress on stderr as it arrives; Ctrl-C cancels it (the server is told,
 * and a blocking tool's thread is stopped) and exits 130. A result with `isError` exits 1.
 */
import { parseArgs } from 'node:util';
import { connect, type McpClient } from '../client/index.js';
import { callArguments } from './call-arguments.js';
import { clientTarget } from './client-target.js';

export const CLIENT_USAGE = [
  'weft list <target> [--protocol auto|legacy|modern] [--header "Name: value"]',
  'weft call <target> <tool> [key=value | key:=json ...] [--json] [--timeout MS]',
  'weft inspect <target>          (target: http(s)://... | ws(s)://... | ./server.js | "command args")',
].join('\n       ');

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
    },
    allowPositionals: true,
    strict: true,
  });
  const [target, ...rest] = positionals;
  if (target === undefined || (command === 'call' && rest[0] === undefined)) {
    process.stderr.write(`usage: ${CLIENT_USAGE}\n`);
    return 2;
  }
  const headers: Record<string, string> = {};
  for (const line of values.header) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new Error(`--header "${line}" is not "Name: value"`);
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  const timeoutMs = values.timeout === undefined ? 0 : Number(values.timeout);
  if (!(Number.isInteger(timeoutMs) && timeoutMs >= 0))
    throw new Error('--timeout must be milliseconds (0: none)');
  const client = await connect(clientTarget(target), {
    name: 'weft-cli',
    protocol: values.protocol as 'auto',
    timeoutMs,
    http: { headers },
  });
  // Piped into `head`: the reader left, which is no error of ours.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
  const out: Out = (text) => process.stdout.write(`${text}\n`);
  try {
    if (command === 'list') return await list(client, out);
    if (command === 'inspect') return await inspect(client, out);
    return await call(client, rest[0]!, rest.slice(1), values.json, out);
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
  asJson: boolean,
  out: Out,
): Promise<number> {
  const tool = (await client.listTools()).find((each) => each.name === name);
  if (tool === undefined) {
    process.stderr.write(`weft: the server has no tool "${name}" (weft list shows its tools)\n`);
    return 2;
  }
  const args = callArguments(words, tool.inputSchema);
  const abort = new AbortController();
  const interrupt = () => abort.abort();
  process.once('SIGINT', interrupt);
  const tty = process.stderr.isTTY === true;
  let progressShown = false;
  try {
    const result = await client.callTool(name, args, {
      signal: abort.signal,
      onprogress: (progress) => {
        const total = progress.total === undefined ? '' : `/${progress.total}`;
        const message = progress.message === undefined ? '' : ` ${progress.message}`;
        process.stderr.write(
          `${tty ? '\r\x1b[2K' : ''}progress ${progress.progress}${total}${message}${tty ? '' : '\n'}`,
        );
        progressShown = true;
      },
    });
    if (progressShown && tty) process.stderr.write('\n');
    printResult(result, asJson, out);
    return result.isError === true ? 1 : 0;
  } catch (error) {
    if (abort.signal.aborted) {
      process.stderr.write(`${progressShown && tty ? '\n' : ''}weft: cancelled ${name}\n`);
      return 130;
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

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}
