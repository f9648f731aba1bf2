/** Every scenario, in the order a full run performs them (on-demand ones only when named). */
import { blockingThroughput } from './blocking-throughput.js';
import { cheapThroughput } from './cheap-throughput.js';
import { coTenants } from './co-tenants.js';
import { coldStartScenario } from './cold-start.js';
import { cpuThroughput } from './cpu-throughput.js';
import { dispatchOverhead } from './dispatch-overhead.js';
import { firstCallDeadline } from './first-call-deadline.js';
import { fleet } from './fleet.js';
import { haproxyNeighbours } from './haproxy-neighbours.js';
import { memory } from './memory.js';
import { middlewareCost } from './middleware-cost.js';
import { modernHttp } from './modern-http.js';
import { modernHttpAuth } from './modern-http-auth.js';
import { modernNeighbours, noisyNeighbour } from './noisy-neighbour.js';
import { payload } from './payload.js';
import { responsiveness } from './responsiveness.js';
import { rollingRestart } from './rolling-restart.js';
import type { Scenario } from './scenario.js';
import { telemetryCost } from './telemetry-cost.js';
import { timeouts } from './timeouts.js';
import { v2ClientEcho } from './v2-client-echo.js';

export const SCENARIOS: readonly Scenario[] = [
  responsiveness,
  cpuThroughput,
  dispatchOverhead,
  blockingThroughput,
  cheapThroughput,
  modernHttp,
  v2ClientEcho,
  modernHttpAuth,
  fleet,
  noisyNeighbour,
  modernNeighbours,
  haproxyNeighbours,
  timeouts,
  firstCallDeadline,
  memory,
  coTenants,
  middlewareCost,
  telemetryCost,
  coldStartScenario,
  rollingRestart,
  payload,
];
