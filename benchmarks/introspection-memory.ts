/**
 * What `oauthResourceServer`'s token tables cost at their caps: the verified-token cache full of
 * introspected tokens (10,000, each a principal with a typical claim set) and the refused-token
 * cache full (10,000 digests, five claims each). A stand-in introspection endpoint on 127.0.0.1
 * answers at once; the heap is measured after a forced GC before and after each fill, and the
 * caps are checked by pushing twice as many tokens through.
 *
 *   npm run build && node --expose-gc dist/benchmarks/introspection-memory.js
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BoundedExpiryCache, tokenDigest } from '../lib/auth/bounded-expiry-cache.js';
import { oauthResourceServer } from '../lib/index.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const AUDIENCE = 'https://mcp.example.com/mcp';
const CAP = 10_000;

const endpoint = createServer((request, response) => {
  let body = '';
  request.setEncoding('utf8');
  request.on('data', (chunk) => {
    body += chunk;
  });
  request.on('end', () => {
    const token = new URLSearchParams(body).get('token') ?? '';
    const active = token.startsWith('good-');
    const now = Math.floor(Date.now() / 1000);
    response.setHeader('content-type', 'application/json');
    response.end(
      JSON.stringify(
        active
          ? {
              active: true,
              iss: 'https://as.example.com',
              aud: AUDIENCE,
              sub: `user-${token}`,
              client_id: 'agent-client',
              scope: 'tools:read files:read',
              exp: now + 3600,
              iat: now,
              jti: token,
            }
          : { active: false },
      ),
    );
  });
});
await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', () => resolve()));
const makeHook = () =>
  oauthResourceServer({
    issuer: 'https://as.example.com',
    audience: AUDIENCE,
    introspection: {
      clientId: 'weft',
      clientSecret: 'secret',
      endpoint: `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/introspect`,
      cacheTtlMs: 60_000,
      negativeCacheTtlMs: 60_000,
    },
  });
const request = (token: string) =>
  ({ headers: { authorization: `Bearer ${token}` }, url: '/mcp', socket: {} }) as unknown as IncomingMessage;

/** Tokens shaped like real opaque ones (43 characters of base64url). */
const token = (prefix: string, i: number) => `${prefix}${i.toString(36).padStart(38, 'x')}`;

async function fill(hook: ReturnType<typeof makeHook>, prefix: string, count: number): Promise<void> {
  for (let start = 0; start < count; start += 200) {
    await Promise.all(
      Array.from({ length: Math.min(200, count - start) }, (_, k) => hook(request(token(prefix, start + k)))),
    );
  }
}

const heap = () => {
  gc!();
  gc!();
  return process.memoryUsage().heapUsed;
};
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

// Warm-up on a hook thrown away: fetch's connection pool and the JIT are not what is measured.
await fill(makeHook(), 'good-', 1000);
await fill(makeHook(), 'bad--', 1000);
const accepting = makeHook();
/** Every table measured stays reachable to the end: a hook collected mid-run would hide another's cost. */
const kept: unknown[] = [accepting];
const base = heap();
await fill(accepting, 'good-', 2 * CAP);
const verified = heap() - base;
const refusing = makeHook();
kept.push(refusing);
const afterVerified = heap();
await fill(refusing, 'bad--', 2 * CAP);
const refused = heap() - afterVerified;
const verifiedKept = accepting.stats.verifiedTokens;
const refusedKept = refusing.stats.introspection?.refusedTokens ?? 0;
console.log(
  `${2 * CAP} accepted tokens pushed: ${verifiedKept} kept, ${mb(verified)} (${Math.round(verified / verifiedKept)} B each)`,
);
console.log(
  `${2 * CAP} refused tokens pushed: ${refusedKept} kept, ${mb(refused)} (${Math.round(refused / refusedKept)} B each)`,
);
// The refused-token table alone (what the hook keeps per refused token), without the network's noise.
const before = heap();
const alone = new BoundedExpiryCache<Record<string, unknown>>(CAP);
kept.push(alone);
for (let i = 0; i < 2 * CAP; i++) {
  const answer = { active: false, iss: undefined, aud: undefined, exp: undefined, nbf: undefined };
  alone.set(tokenDigest(token('bad--', i)), answer, Date.now() + 60_000);
}
const aloneBytes = heap() - before;
console.log(
  `the refused-token table alone at its cap: ${alone.size} kept, ${mb(aloneBytes)} (${Math.round(aloneBytes / alone.size)} B each)`,
);
const { inFlight, running, queued } = refusing.stats.introspection!;
console.log(`after the floods: in flight ${inFlight}, running ${running}, queued ${queued}`);
console.log(`(${kept.length} tables kept to the end)`);
endpoint.closeAllConnections();
endpoint.close();
