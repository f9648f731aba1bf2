/**
 * modern-http-auth: what `oauthResourceServer` costs a weft server on its hot path. The same weft
 * benchmark server twice in one run, once plain and once protected (JWT access tokens, audience =
 * an explicit canonical URL), both sent the same bearer header, echo in a closed loop at 1 and 16
 * in flight over the stateless 2026-07-28 era. The protected server verifies the token's signature
 * once and then answers from its verified-token cache (a SHA-256 of the header and a map lookup per
 * request): the target is >= 0.9x the plain server's throughput.
 */
import { closedLoop } from '../load/closed-loop.js';
import { startBenchIssuer } from '../servers/bench-issuer.js';
import { weftProtectedBy } from '../servers/server-catalog.js';
import { echoSweep } from './echo-sweep.js';
import { CHEAP_CALL, type Scenario, withServers } from './scenario.js';

const TRANSPORT = 'modern-http';
const CONCURRENCY = [1, 16];
/** The canonical URL the protected server is told it has (as behind a balancer), and tokens name. */
const AUDIENCE = 'http://weft-bench.localhost/mcp';

export const modernHttpAuth: Scenario = {
  name: 'modern-http-auth',
  quick: true,
  steps: (budget, servers) =>
    servers.some((spec) => spec.id === 'weft') ? 2 * CONCURRENCY.length * budget.repeats : 0,
  async run(context) {
    const { budget } = context;
    const weft = context.servers.find((spec) => spec.id === 'weft');
    if (!weft) return;
    const issuer = await startBenchIssuer();
    try {
      const protectedWeft = weftProtectedBy(issuer.issuer, AUDIENCE);
      const headers = { authorization: `Bearer ${await issuer.token(AUDIENCE)}` };
      const stepsPerServer = CONCURRENCY.length * budget.repeats;
      await withServers(
        context,
        [weft, protectedWeft],
        TRANSPORT,
        { headers },
        stepsPerServer,
        async (servers) => {
          for (const { client } of servers) await closedLoop(client, CHEAP_CALL, 16, budget.warmupMs);
          await echoSweep(context, servers, TRANSPORT, {
            concurrency: CONCURRENCY,
            windowMs: budget.windowMs / 2,
            failure: 'modern-http-auth echo',
            step: (spec, concurrency) => `modern-http-auth ${spec.label} c=${concurrency}`,
          });
        },
      );
    } finally {
      await issuer.stop();
    }
  },
};
