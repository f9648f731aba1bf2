/**
 * A round-robin HTTP balancer on a free port of 127.0.0.1 in front of replicas, for the suites that
 * check what replicas share (tasks, sessions' state, bindings) by sending each request to the next
 * one: `targets()` is asked anew for every request, so a suite can leave out replicas it killed, and
 * the target of each request is pushed on `served`, so a test can tell which replica answered. A
 * replica that cannot be reached answers 502.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import httpProxy from 'http-proxy';

export async function startRoundRobin(
  targets: () => readonly string[],
  served: string[] = [],
): Promise<{ server: Server; url: string }> {
  const proxy = httpProxy.createProxyServer({});
  proxy.on('error', (_error, _request, response) => {
    const reply = response as ServerResponse;
    if (!reply.headersSent) reply.writeHead(502);
    reply.end();
  });
  let next = 0;
  const server = createServer((request, response) => {
    const choices = targets();
    const target = choices[next++ % choices.length]!;
    served.push(target);
    proxy.web(request, response, { target });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}/mcp` };
}
