/**
 * The two probe answers, for whichever HTTP listener serves them (the MCP listener, or the
 * probes' own port). They are answered before auth, Origin checks and every per-caller limit: a
 * balancer has no token and must not spend a caller's budget. The bodies say only the phase and,
 * when not ready, why in plain words (no version, address, key or counts), and are never cached.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HealthPaths } from './health-options.js';
import type { Readiness } from './readiness.js';

const HEADERS = { 'content-type': 'application/json', 'cache-control': 'no-store' };
const ALIVE = Buffer.from('{"status":"ok"}');
const READY = Buffer.from('{"status":"ready"}');

export class HealthRoutes {
  readonly #paths: HealthPaths;
  readonly #readiness: Readiness;
  /** Why the replica should be restarted (liveness fails), or undefined while it should not. */
  readonly #liveness: () => string | undefined;

  constructor(
    paths: HealthPaths,
    readiness: Readiness,
    liveness: () => string | undefined = () => undefined,
  ) {
    this.#paths = paths;
    this.#readiness = readiness;
    this.#liveness = liveness;
  }

  /** Answers `request` when `pathname` is a probe's; false (nothing sent) otherwise. */
  serve(pathname: string, request: IncomingMessage, response: ServerResponse): boolean {
    const live = pathname === this.#paths.livePath;
    if (!live && pathname !== this.#paths.readyPath) return false;
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { ...HEADERS, allow: 'GET, HEAD' }).end('{"status":"method not allowed"}');
      return true;
    }
    const head = request.method === 'HEAD';
    if (live) {
      const stuck = this.#liveness();
      if (stuck === undefined) response.writeHead(200, HEADERS).end(head ? undefined : ALIVE);
      else {
        const body = JSON.stringify({ status: 'stuck', reason: stuck });
        response.writeHead(503, HEADERS).end(head ? undefined : body);
      }
      return true;
    }
    const answer = this.#readiness.answer();
    if (answer.ready) {
      response.writeHead(200, HEADERS).end(head ? undefined : READY);
      return true;
    }
    const body = JSON.stringify({ status: answer.status, reason: answer.reason });
    response.writeHead(503, HEADERS).end(head ? undefined : body);
    return true;
  }
}
