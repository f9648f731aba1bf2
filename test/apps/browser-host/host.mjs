/**
 * A small MCP Apps host for the browser test: the official host bridge (AppBridge from
 * @modelcontextprotocol/ext-apps) in front of the official client, talking to a weft server on
 * another origin (so every request is a CORS request, with its preflight).
 *
 * The page's query says what to do: `server` (the MCP endpoint), `era` (`legacy` or `modern`),
 * `tool` and `args` (the call "the model" makes). It lists the tools, reads the tool's UI
 * resource, renders it in a sandboxed iframe under the CSP its `_meta.ui.csp` asks for, calls the
 * tool and hands the result to the app; the app's own tool calls go through the bridge. What
 * happened is left in `document.body.dataset` and `#log` for the test to read.
 */

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  AppBridge,
  getToolUiResourceUri,
  PostMessageTransport,
} from '@modelcontextprotocol/ext-apps/app-bridge';

const UI_MIME_TYPE = 'text/html;profile=mcp-app';
const query = new URLSearchParams(location.search);
const log = (line) => {
  document.getElementById('log').textContent += `${line}\n`;
};

/** The app's CSP from its declared domains: nothing beyond its own inline code unless it asks. */
function cspOf(csp = {}) {
  const list = (domains) => (domains?.length ? domains.join(' ') : "'none'");
  const resources = csp.resourceDomains?.length ? ` ${csp.resourceDomains.join(' ')}` : '';
  return [
    "default-src 'none'",
    `script-src 'unsafe-inline'${resources}`,
    `style-src 'unsafe-inline'${resources}`,
    `img-src data:${resources}`,
    `connect-src ${list(csp.connectDomains)}`,
    `frame-src ${list(csp.frameDomains)}`,
  ].join('; ');
}

async function main() {
  const era = query.get('era') ?? 'legacy';
  const client = new Client(
    { name: 'weft-browser-host', version: '1.0.0' },
    {
      capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [UI_MIME_TYPE] } } },
      ...(era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
    },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(query.get('server'))));
  log(`connected (${era})`);
  const extensions = client.getServerCapabilities()?.extensions ?? {};
  document.body.dataset.uiExtension = String('io.modelcontextprotocol/ui' in extensions);

  const { tools } = await client.listTools();
  const tool = tools.find((candidate) => candidate.name === query.get('tool'));
  if (!tool) throw new Error(`the server lists no tool ${query.get('tool')}`);
  const uri = getToolUiResourceUri(tool);
  log(`tool ${tool.name} has UI ${uri}`);
  const { contents } = await client.readResource({ uri });
  const [app] = contents;
  if (app?.mimeType !== UI_MIME_TYPE) throw new Error(`the UI resource has mimeType ${app?.mimeType}`);
  document.body.dataset.prefersBorder = String(app._meta?.ui?.prefersBorder);

  const iframe = document.createElement('iframe');
  iframe.setAttribute('sandbox', 'allow-scripts');
  iframe.width = '600';
  iframe.height = '380';
  document.getElementById('apps').append(iframe);
  const bridge = new AppBridge(
    client,
    { name: 'weft-browser-host', version: '1.0.0' },
    { serverTools: {}, logging: {} },
  );
  const args = JSON.parse(query.get('args') ?? '{}');
  bridge.oninitialized = async () => {
    log('app initialized');
    try {
      await bridge.sendToolInput({ arguments: args });
      const result = await client.callTool({ name: tool.name, arguments: args });
      await bridge.sendToolResult(result);
      log('tool result sent to the app');
    } catch (error) {
      fail(error);
    }
  };
  // Listening before the app's document exists, so its first message (ui/initialize) is heard.
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  const csp = `<meta http-equiv="Content-Security-Policy" content="${cspOf(app._meta?.ui?.csp)}">`;
  iframe.srcdoc = app.text.replace('<head>', `<head>${csp}`);
  document.body.dataset.state = 'rendered';
}

function fail(error) {
  document.body.dataset.state = 'error';
  log(`error: ${error?.message ?? error}`);
}

main().catch(fail);
