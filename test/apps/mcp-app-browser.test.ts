/**
 * The MCP Apps path end to end in a real browser: headless Chromium (Debian's `chromium`, driven by
 * playwright-core) opens a small host page (browser-host/host.mjs: the official ext-apps host
 * bridge in front of the official client) served from one origin, talking to a weft server on
 * another origin with `cors` allowing the first. The demo's prime_density app renders in the
 * sandboxed iframe, shows the result the host fetched, then calls the tool itself through the
 * bridge. Both eras; the CORS preflights are seen by the server; an origin not allowed cannot read.
 *
 * Without a Chromium it skips and says so; with WEFT_REQUIRE_BROWSER=1 (CI) it fails instead.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { type Browser, chromium, type Frame, type Page } from 'playwright-core';
import { addDemoApp, addDemoTools } from '../../examples/demo-tools.js';
import { McpServer } from '../../lib/index.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const HOST_DIR = `${REPO}test/apps/browser-host/`;
const OUTPUT_DIR = process.env.WEFT_TEST_OUTPUT ?? `${REPO}test-output/mcp-apps/`;
const CHROMIUM_CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
const chromiumPath = CHROMIUM_CANDIDATES.find(
  (path) => path !== undefined && path !== '' && existsSync(path),
);
const browserRequired = process.env.WEFT_REQUIRE_BROWSER === '1';
const skipReason =
  chromiumPath === undefined && !browserRequired
    ? 'SKIPPED: no Chromium found (apt-get install chromium, or set CHROMIUM_PATH); the MCP Apps browser test did not run'
    : false;
if (skipReason) process.stderr.write(`mcp-app-browser: ${skipReason}\n`);

/** Primes in [from, to], counted here independently of the server. */
function primesBetween(from: number, to: number): number {
  let count = 0;
  for (let n = Math.max(2, from); n <= to; n++) {
    let prime = true;
    for (let d = 2; d * d <= n; d++) {
      if (n % d === 0) {
        prime = false;
        break;
      }
    }
    if (prime) count++;
  }
  return count;
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );
}

/** The little of the DOM the page functions below touch (they run in the browser, not here). */
declare const document: {
  body: { dataset: Record<string, string | undefined> };
  getElementById(id: string): { textContent: string | null } | null;
};

interface SeenRequest {
  method: string;
  origin: string | undefined;
  requestHeaders: string | undefined;
  status?: number;
  allowOrigin?: string;
}

describe('an MCP App in headless Chromium, through the ext-apps host bridge', { skip: skipReason }, () => {
  let browser: Browser;
  let mcp: McpServer;
  let weft: Server;
  let hostServer: Server;
  let weftUrl: string;
  let hostOrigin: string;
  let otherOrigin: string;
  const seen: SeenRequest[] = [];
  /** The browser's console, for the failure messages. */
  const consoleLines: string[] = [];

  before(async () => {
    if (chromiumPath === undefined) {
      throw new Error(
        'WEFT_REQUIRE_BROWSER=1 but no Chromium was found: apt-get install chromium, or set CHROMIUM_PATH',
      );
    }
    const bundle = await build({
      entryPoints: [`${HOST_DIR}host.mjs`],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      write: false,
      logLevel: 'silent',
    });
    const hostJs = bundle.outputFiles[0]!.text;
    const indexHtml = readFileSync(`${HOST_DIR}index.html`, 'utf8');
    hostServer = createServer((request, response) => {
      const path = new URL(request.url ?? '/', 'http://x').pathname;
      if (path === '/') return void response.writeHead(200, { 'content-type': 'text/html' }).end(indexHtml);
      if (path === '/host.js')
        return void response.writeHead(200, { 'content-type': 'text/javascript' }).end(hostJs);
      response.writeHead(404).end();
    });
    const hostPort = await listen(hostServer);
    // Two origins for the same page: localhost is allowed by cors, 127.0.0.1 is not.
    hostOrigin = `http://localhost:${hostPort}`;
    otherOrigin = `http://127.0.0.1:${hostPort}`;

    mcp = addDemoApp(
      addDemoTools(new McpServer({ name: 'weft-demo', version: '0.1.0', pool: { maxThreads: 1 } })),
    );
    const handle = mcp.handler({ cors: { origins: [hostOrigin] } });
    weft = createServer((request: IncomingMessage, response) => {
      const entry: SeenRequest = {
        method: request.method ?? '',
        origin: request.headers.origin,
        requestHeaders: request.headers['access-control-request-headers'],
      };
      seen.push(entry);
      response.once('finish', () => {
        entry.status = response.statusCode;
        entry.allowOrigin = response.getHeader('access-control-allow-origin') as string | undefined;
      });
      handle(request, response);
    });
    weftUrl = `http://127.0.0.1:${await listen(weft)}/mcp`;
    mkdirSync(OUTPUT_DIR, { recursive: true });
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ['--no-sandbox'],
      timeout: 60_000,
    });
  });

  after(async () => {
    await browser?.close();
    await mcp?.close();
    weft?.close();
    hostServer?.close();
  });

  async function openHost(origin: string, era: string, limit: number): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 660, height: 560 } });
    page.on('console', (message) => consoleLines.push(`${message.type()}: ${message.text()}`));
    const query = new URLSearchParams({
      server: weftUrl,
      era,
      tool: 'prime_density',
      args: JSON.stringify({ limit, buckets: 10 }),
    });
    await page.goto(`${origin}/?${query}`);
    return page;
  }

  async function appFrame(page: Page): Promise<Frame> {
    await page.waitForFunction(() => document.body.dataset.state !== 'loading', undefined, {
      timeout: 30_000,
    });
    const state = await page.evaluate(() => document.body.dataset.state);
    assert.equal(state, 'rendered', (await page.locator('#log').textContent()) ?? '');
    const handle = await page.waitForSelector('iframe');
    const frame = await handle.contentFrame();
    assert.ok(frame, 'the app iframe has a frame');
    return frame;
  }

  /** Waits for the app to show a total for this limit; returns the bars' counts as drawn. */
  async function shownResult(frame: Frame, limit: number): Promise<{ total: string; bars: number[] }> {
    try {
      await frame.waitForFunction(
        (expected) => document.getElementById('total')?.textContent?.endsWith(`primes up to ${expected}`),
        limit,
        { timeout: 60_000 },
      );
    } catch (error) {
      const status = await frame.locator('#status').textContent();
      throw new Error(
        `the app never showed the result for ${limit} (its status: ${status}); console:\n${consoleLines.join('\n')}`,
        { cause: error },
      );
    }
    const total = (await frame.locator('#total').textContent()) ?? '';
    const bars = await frame.$$eval('#chart rect', (rects) =>
      rects.map((rect) => Number(rect.getAttribute('data-count'))),
    );
    return { total, bars };
  }

  function expectedBars(limit: number): number[] {
    const width = Math.ceil(limit / 10);
    return Array.from({ length: 10 }, (_, i) =>
      primesBetween(i * width + 1, Math.min((i + 1) * width, limit)),
    );
  }

  for (const era of ['legacy', 'modern']) {
    it(`renders the tool's result in the app and lets the app call the tool (${era} era)`, async () => {
      const page = await openHost(hostOrigin, era, 1000);
      try {
        const frame = await appFrame(page);
        assert.equal(await page.evaluate(() => document.body.dataset.uiExtension), 'true');
        assert.equal(await page.evaluate(() => document.body.dataset.prefersBorder), 'true');

        // The result the host fetched and handed over (ui/notifications/tool-result).
        const first = await shownResult(frame, 1000);
        assert.equal(first.total, `${primesBetween(2, 1000)} primes up to 1000`);
        assert.deepEqual(first.bars, expectedBars(1000));

        // The app's own call (tools/call through the bridge, forwarded by the client to weft).
        await frame.fill('#limit', '30000');
        await frame.click('#recount');
        const second = await shownResult(frame, 30000);
        assert.equal(second.total, `${primesBetween(2, 30000)} primes up to 30000`);
        assert.deepEqual(second.bars, expectedBars(30000));
        const log = (await page.locator('#log').textContent()) ?? '';
        assert.match(log, /app initialized/);
        await page.screenshot({ path: `${OUTPUT_DIR}prime-density-${era}.png` });
      } finally {
        await page.close();
      }
    });
  }

  it('answered real CORS preflights from the allowed origin, with the MCP headers', () => {
    const preflights = seen.filter((entry) => entry.method === 'OPTIONS' && entry.origin === hostOrigin);
    assert.ok(preflights.length > 0, `no preflight reached the server: ${JSON.stringify(seen)}`);
    for (const preflight of preflights) {
      assert.equal(preflight.status, 204);
      assert.equal(preflight.allowOrigin, hostOrigin);
    }
    const asked = preflights.map((entry) => entry.requestHeaders ?? '').join(',');
    assert.match(asked, /mcp-protocol-version/);
    assert.match(asked, /mcp-method/, 'the modern client sent Mcp-Method, so the browser asked for it');
    const posts = seen.filter((entry) => entry.method === 'POST' && entry.origin === hostOrigin);
    assert.ok(posts.length > 0 && posts.every((entry) => entry.allowOrigin === hostOrigin));
  });

  it('leaves a page on an origin not listed in cors unable to read anything', async () => {
    const page = await openHost(otherOrigin, 'legacy', 1000);
    try {
      await page.waitForFunction(() => document.body.dataset.state !== 'loading', undefined, {
        timeout: 30_000,
      });
      assert.equal(await page.evaluate(() => document.body.dataset.state), 'error');
      assert.match((await page.locator('#log').textContent()) ?? '', /error: .*fetch/i);
      const refused = seen.filter((entry) => entry.origin === otherOrigin);
      assert.ok(refused.length > 0, 'the browser tried');
      assert.ok(refused.every((entry) => entry.allowOrigin === undefined));
    } finally {
      await page.close();
    }
  });
});
