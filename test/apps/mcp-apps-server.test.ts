/**
 * MCP Apps on the server side, without a browser: what a tool's `ui` option publishes, what
 * `server.uiResource` serves, the extension in both eras, and every registration mistake refused
 * with a message that names it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { McpServer, ToolRegistrationError } from '../../lib/index.js';
import { envelope } from '../router/modern-fixtures.js';
import { InProcessClient } from '../support/in-process-client.js';

const APP = 'ui://test/chart.html';
const HTML = '<!doctype html><html><head></head><body>chart</body></html>';

function serverWithApp(): McpServer {
  return new McpServer({ name: 'apps', version: '1.0.0' })
    .uiResource({
      uri: APP,
      name: 'chart',
      html: HTML,
      csp: { connectDomains: ['https://api.example.com'] },
      permissions: { clipboardWrite: {} },
      prefersBorder: false,
    })
    .tool({
      name: 'chart',
      inputSchema: { type: 'object' },
      ui: { resourceUri: APP },
      _meta: { 'example.com/owner': 'team-a' },
      handler: () => 'a chart',
    })
    .tool({
      name: 'refresh_chart',
      inputSchema: { type: 'object' },
      ui: { resourceUri: APP, visibility: ['app'] },
      handler: () => 'refreshed',
    });
}

describe('MCP Apps: the ui option and server.uiResource', () => {
  it('publishes _meta.ui and the flat key beside the tool’s own _meta', async () => {
    const client = new InProcessClient(serverWithApp());
    await client.initialize();
    const tools = (await client.request('tools/list')).result!.tools as { name: string; _meta?: object }[];
    const byName = new Map(tools.map((tool) => [tool.name, tool._meta]));
    assert.deepEqual(byName.get('chart'), {
      'example.com/owner': 'team-a',
      ui: { resourceUri: APP },
      'ui/resourceUri': APP,
    });
    assert.deepEqual(byName.get('refresh_chart'), {
      ui: { resourceUri: APP, visibility: ['app'] },
      'ui/resourceUri': APP,
    });
    // A UI-bound tool still answers with content for clients that render no app.
    const call = await client.callTool('chart', {});
    assert.equal(call.result!.content![0]!.text, 'a chart');
  });

  it('serves the app as text/html;profile=mcp-app with its _meta.ui on the content and the listing', async () => {
    const client = new InProcessClient(serverWithApp());
    await client.initialize();
    const ui = {
      csp: { connectDomains: ['https://api.example.com'] },
      permissions: { clipboardWrite: {} },
      prefersBorder: false,
    };
    const read = await client.request('resources/read', { uri: APP });
    assert.deepEqual(read.result!.contents, [
      { uri: APP, mimeType: 'text/html;profile=mcp-app', text: HTML, _meta: { ui } },
    ]);
    const listed = (await client.request('resources/list')).result!.resources as object[];
    assert.deepEqual(listed, [
      { uri: APP, name: 'chart', mimeType: 'text/html;profile=mcp-app', _meta: { ui } },
    ]);
  });

  it('builds the html per read when given a function', async () => {
    let reads = 0;
    const server = new McpServer({ name: 'apps', version: '1.0.0' }).uiResource({
      uri: APP,
      name: 'chart',
      html: async () => `<p>read ${++reads}</p>`,
    });
    const client = new InProcessClient(server);
    await client.initialize();
    for (const expected of ['<p>read 1</p>', '<p>read 2</p>']) {
      const read = await client.request('resources/read', { uri: APP });
      assert.equal((read.result!.contents as { text: string }[])[0]!.text, expected);
    }
  });

  it('advertises the extension in both eras once an app is registered, and not before', async () => {
    const bare = new InProcessClient(new McpServer({ name: 'bare', version: '1.0.0' }));
    const bareInit = await bare.initialize();
    assert.equal((bareInit.result!.capabilities as { extensions?: object }).extensions, undefined);

    const server = serverWithApp();
    const legacy = await new InProcessClient(server).initialize();
    assert.deepEqual((legacy.result!.capabilities as { extensions?: object }).extensions, {
      'io.modelcontextprotocol/ui': {},
    });
    const discover = await new InProcessClient(server).request('server/discover', { _meta: envelope() });
    assert.deepEqual((discover.result!.capabilities as { extensions?: object }).extensions, {
      'io.modelcontextprotocol/ui': {},
    });
  });

  it('also accepts an app registered through the plain resource API with the mime type', () => {
    const server = new McpServer({ name: 'apps', version: '1.0.0' }).resource({
      uri: APP,
      name: 'chart',
      mimeType: 'text/html;profile=mcp-app',
      read: () => HTML,
    });
    server.tool({
      name: 'chart',
      inputSchema: { type: 'object' },
      ui: { resourceUri: APP },
      handler: () => '',
    });
  });

  it('refuses a ui that is not ui://, names no app, names a non-app resource, or has an unknown key', () => {
    const server = new McpServer({ name: 'apps', version: '1.0.0' })
      .uiResource({ uri: APP, name: 'chart', html: HTML })
      .resource({ uri: 'ui://test/notes.txt', name: 'notes', mimeType: 'text/plain', read: () => 'x' });
    const attempts: [unknown, RegExp][] = [
      [{ resourceUri: 'https://example.com/chart.html' }, /ui\.resourceUri must be a ui:\/\/ URI/],
      [{ resourceUri: 'ui://test/missing.html' }, /names no registered UI resource; register the app first/],
      [{ resourceUri: 'ui://test/notes.txt' }, /mimeType is "text\/plain", not text\/html;profile=mcp-app/],
      [{ resourceUri: APP, visibilty: ['app'] }, /ui: unknown key "visibilty"/],
      [{ resourceUri: APP, visibility: ['user'] }, /ui\.visibility must be/],
      [{ resourceUri: APP, visibility: [] }, /ui\.visibility must be/],
      ['ui://test/chart.html', /ui must be \{ resourceUri/],
    ];
    for (const [ui, message] of attempts) {
      assert.throws(
        () =>
          server.tool({ name: 'bad', inputSchema: { type: 'object' }, ui: ui as never, handler: () => '' }),
        (error: Error) => error instanceof ToolRegistrationError && message.test(error.message),
        `${JSON.stringify(ui)} should be refused with ${message}`,
      );
    }
    assert.throws(
      () =>
        server.tool({
          name: 'bad',
          inputSchema: { type: 'object' },
          ui: { resourceUri: APP },
          _meta: { ui: { resourceUri: APP } },
          handler: () => '',
        }),
      /set the UI with the ui option only/,
    );
  });

  it('refuses the same mistakes in the type checker', () => {
    const server = new McpServer({ name: 'apps', version: '1.0.0' }).uiResource({
      uri: APP,
      name: 'c',
      html: HTML,
    });
    // Each call on one line: TypeScript 5 reports the mistake at the call, 7 at the property.
    const typo = { name: 'typo', inputSchema: { type: 'object' } as const, handler: () => '' };
    // biome-ignore format: the line @ts-expect-error covers must hold the whole call
    // @ts-expect-error: the key is visibility ("visibilty" is not a known property of ui)
    assert.throws(() => server.tool({ ...typo, ui: { resourceUri: APP, visibilty: ['app'] } }));
    const notUi = { name: 'not_ui', inputSchema: { type: 'object' } as const, handler: () => '' };
    // biome-ignore format: the line @ts-expect-error covers must hold the whole call
    // @ts-expect-error: a UI lives at a ui:// URI
    assert.throws(() => server.tool({ ...notUi, ui: { resourceUri: 'https://example.com/chart.html' } }));
  });

  it('refuses malformed UI resources with what to fix', () => {
    const server = new McpServer({ name: 'apps', version: '1.0.0' });
    const attempts: [Record<string, unknown>, RegExp][] = [
      [{ uri: 'app://chart', name: 'c', html: HTML }, /uri must be a ui:\/\/ URI/],
      [{ uri: APP, name: 'c' }, /html must be the app as an HTML string/],
      [{ uri: APP, name: 'c', html: HTML, csp: { connectDomain: [] } }, /csp: unknown key "connectDomain"/],
      [
        { uri: APP, name: 'c', html: HTML, csp: { connectDomains: 'https://a' } },
        /csp\.connectDomains must be a list/,
      ],
      [{ uri: APP, name: 'c', html: HTML, permissions: { webcam: {} } }, /permissions: unknown key "webcam"/],
      [{ uri: APP, name: 'c', html: HTML, prefersBorder: 'yes' }, /prefersBorder must be true or false/],
      [{ uri: APP, name: 'c', html: HTML, mimeType: 'text/html' }, /unknown option "mimeType"/],
    ];
    for (const [definition, message] of attempts) {
      assert.throws(() => server.uiResource(definition as never), message);
    }
  });
});
