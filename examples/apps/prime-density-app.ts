/**
 * The MCP App of the demo's `prime_density` tool: one self-contained HTML page (no external
 * script, style or request, so it runs under the strictest CSP a host applies) that a host
 * renders in a sandboxed iframe.
 *
 * It speaks the MCP Apps protocol by hand, JSON-RPC over `postMessage` with its host, to show how
 * little an app needs: `ui/initialize` then `ui/notifications/initialized`; it draws the result the
 * host sends (`ui/notifications/tool-result`), and its Recount button calls the tool again through
 * the host (`tools/call`, forwarded to the weft server).
 */
export const PRIME_DENSITY_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Prime density</title>
<style>
  body { font: 14px/1.4 system-ui, sans-serif; margin: 12px; color: #1d2733; background: #fff; }
  h1 { font-size: 16px; margin: 0 0 8px; }
  .controls { display: flex; gap: 6px; align-items: center; margin-bottom: 8px; }
  input { width: 9em; }
  #status { color: #5b6877; min-height: 1.4em; }
  #total { font-weight: 600; }
  svg text { font-size: 10px; fill: #1d2733; }
  rect { fill: #3b7dd8; }
</style>
</head>
<body>
<h1>Primes per range</h1>
<div class="controls">
  <label for="limit">up to</label>
  <input id="limit" type="number" min="10" max="200000000" value="100000">
  <button id="recount" type="button">Recount</button>
</div>
<p id="status">Waiting for the host…</p>
<p id="total"></p>
<svg id="chart" width="560" height="220" role="img" aria-label="primes per range"></svg>
<script>
(() => {
  const host = window.parent;
  const pending = new Map();
  let nextId = 1;
  const send = (message) => host.postMessage({ jsonrpc: '2.0', ...message }, '*');
  const request = (method, params) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      send({ id, method, params });
    });
  const status = (text) => { document.getElementById('status').textContent = text; };

  function draw(result) {
    const data = result && result.structuredContent;
    if (result && result.isError) return status('The tool failed: ' + (result.content?.[0]?.text ?? 'no reason given'));
    if (!data || !Array.isArray(data.buckets)) return status('The result has no chart data');
    document.getElementById('total').textContent = data.total + ' primes up to ' + data.limit;
    document.getElementById('limit').value = String(data.limit);
    const svg = document.getElementById('chart');
    svg.replaceChildren();
    const max = Math.max(1, ...data.buckets.map((b) => b.count));
    const slot = 560 / data.buckets.length;
    const NS = 'http://www.w3.org/2000/svg';
    data.buckets.forEach((bucket, i) => {
      const height = Math.round((bucket.count / max) * 170);
      const bar = document.createElementNS(NS, 'rect');
      bar.setAttribute('x', String(i * slot + 4));
      bar.setAttribute('y', String(190 - height));
      bar.setAttribute('width', String(Math.max(1, slot - 8)));
      bar.setAttribute('height', String(height));
      bar.setAttribute('data-count', String(bucket.count));
      const label = document.createElementNS(NS, 'text');
      label.setAttribute('x', String(i * slot + slot / 2));
      label.setAttribute('y', String(184 - height));
      label.setAttribute('text-anchor', 'middle');
      label.textContent = String(bucket.count);
      const range = document.createElementNS(NS, 'text');
      range.setAttribute('x', String(i * slot + slot / 2));
      range.setAttribute('y', '206');
      range.setAttribute('text-anchor', 'middle');
      range.textContent = '≤' + bucket.to;
      svg.append(bar, label, range);
    });
    status('Counted in the server’s worker pool');
    send({ method: 'ui/notifications/size-changed', params: { height: document.documentElement.scrollHeight } });
  }

  window.addEventListener('message', (event) => {
    if (event.source !== host) return;
    const message = event.data;
    if (!message || message.jsonrpc !== '2.0') return;
    if (message.id !== undefined && message.method === undefined) {
      const waiter = pending.get(message.id);
      pending.delete(message.id);
      if (!waiter) return;
      if (message.error) waiter.reject(new Error(message.error.message));
      else waiter.resolve(message.result);
      return;
    }
    if (message.method === 'ui/notifications/tool-input') {
      const limit = message.params?.arguments?.limit;
      if (limit !== undefined) document.getElementById('limit').value = String(limit);
      status('Counting…');
    } else if (message.method === 'ui/notifications/tool-result') {
      draw(message.params);
    } else if (message.id !== undefined) {
      // Requests from the host: teardown and ping need only an acknowledgement.
      if (message.method === 'ui/resource-teardown' || message.method === 'ping') send({ id: message.id, result: {} });
      else send({ id: message.id, error: { code: -32601, message: 'Not handled by this app: ' + message.method } });
    }
  });

  // A button, not a form: sandboxed frames without allow-forms may not submit forms.
  document.getElementById('recount').addEventListener('click', () => {
    const limit = Number(document.getElementById('limit').value);
    status('Counting…');
    request('tools/call', { name: 'prime_density', arguments: { limit, buckets: 10 } })
      .then(draw)
      .catch((error) => status('The call failed: ' + error.message));
  });

  request('ui/initialize', {
    appInfo: { name: 'weft-prime-density', version: '1.0.0' },
    appCapabilities: {},
    protocolVersion: '2026-01-26',
  }).then(() => {
    send({ method: 'ui/notifications/initialized', params: {} });
    status('Ready');
  }, (error) => status('The host refused the app: ' + error.message));
})();
</script>
</body>
</html>
`;
