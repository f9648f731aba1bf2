/**
 * The two official conformance suites `npm run conformance` runs, and what weft expects of each.
 *
 * The legacy suite (0.1.16, `--suite all`) must pass whole. The 2026-07-28 suite (0.2.0-alpha.12,
 * `--requirements 2026-07-28`) also runs scenarios that belong to a later issue (the tasks
 * extension): their results are reported, never counted against weft, and every other
 * scenario it runs, scored or pending, must finish with 0 failed checks. The deferrals are named
 * here, in one list, so that shrinking them is a one-line change when those issues land.
 *
 * Both suites also run through a gateway, mounting the server over stdio
 * (examples/conformance-gateway.ts) and by URL (examples/conformance-gateway-url.ts), and are judged
 * the same way, except for GATEWAY_EXCEPTIONS below: each named, with its reason, and printed with its
 * result on every run.
 */

/** @typedef {{ status: string, id: string, errorMessage?: string }} Check */

/**
 * @typedef {object} Suite
 * @property {string} name what the summary calls it
 * @property {string} version the exact npm version of `@modelcontextprotocol/conformance`
 * @property {string[]} args what follows `server --url URL` on the suite's command line
 * @property {(scenario: string) => boolean} scenarioDeferred a whole scenario is a later issue's
 * @property {(scenario: string, check: Check) => boolean} checkDeferred one check is a later issue's
 */

/** Scenarios of the 2026-07-28 requirements left to a later issue: none since tasks (issue 13) landed. */
const LATER_SCENARIO_PREFIXES = [];

/** `server-stateless` checks of later issues: none since MRTR (issue 12) landed. */
const LATER_STATELESS_CHECKS = new Set([]);

/** @type {Suite} */
export const LEGACY_SUITE = {
  name: 'legacy (2025-11-25 and earlier)',
  version: '0.1.16',
  args: ['--suite', 'all'],
  scenarioDeferred: () => false,
  checkDeferred: () => false,
};

/** @type {Suite} */
export const MODERN_SUITE = {
  name: 'modern (2026-07-28 requirements)',
  version: '0.2.0-alpha.12',
  args: ['--requirements', '2026-07-28'],
  scenarioDeferred: (scenario) => LATER_SCENARIO_PREFIXES.some((prefix) => scenario.startsWith(prefix)),
  checkDeferred: (scenario, check) => scenario === 'server-stateless' && LATER_STATELESS_CHECKS.has(check.id),
};

export const SUITES = { legacy: LEGACY_SUITE, modern: MODERN_SUITE };

/**
 * Scenarios (or `scenario: check` pairs) the gateway pass cannot pass for a principled reason, each
 * with that reason. Anything not named here is judged exactly as it is against the server directly.
 *
 * @type {Map<string, string>}
 */
const GATEWAY_EXCEPTIONS = new Map([]);

/** Why `scenario` (or one of its checks) is not counted through the gateway, or undefined. */
export function gatewayException(target, scenario, checkId) {
  if (!target.startsWith('gateway')) return undefined;
  return (
    (checkId !== undefined ? GATEWAY_EXCEPTIONS.get(`${scenario}: ${checkId}`) : undefined) ??
    GATEWAY_EXCEPTIONS.get(scenario)
  );
}

/**
 * Sorts one suite's per-scenario checks into what fails weft and what is only reported.
 *
 * @param {Suite} suite
 * @param {Map<string, Check[] | undefined>} scenarios each scenario the suite ran, with its checks
 *   (undefined when the suite wrote no results for it, which counts as a failure)
 */
export function judge(suite, scenarios, target = 'direct') {
  /** @type {{ scenario: string, id: string, message: string }[]} */
  const failures = [];
  /** @type {{ scenario: string, passed: number, failed: number }[]} */
  const deferred = [];
  /** SHOULD-level checks that did not hold: shown, never failing. */
  const warnings = [];
  /** Documented gateway exceptions: reported with their reason, never failing. */
  const excepted = [];
  for (const [scenario, checks] of scenarios) {
    const whole = gatewayException(target, scenario);
    if (whole) {
      const failed = (checks ?? []).filter((check) => check.status === 'FAILURE').length;
      excepted.push({ scenario, failed, why: whole });
      continue;
    }
    if (suite.scenarioDeferred(scenario)) {
      const failed = (checks ?? []).filter((check) => check.status === 'FAILURE').length;
      deferred.push({ scenario, passed: (checks ?? []).length - failed, failed });
      continue;
    }
    if (checks === undefined) {
      failures.push({ scenario, id: '(no results)', message: 'the suite wrote no checks for this scenario' });
      continue;
    }
    for (const check of checks) {
      const failed = check.status === 'FAILURE';
      const why = gatewayException(target, scenario, check.id);
      if (why) {
        excepted.push({ scenario, id: check.id, failed, why });
        continue;
      }
      if (suite.checkDeferred(scenario, check)) {
        deferred.push({
          scenario: `${scenario}: ${check.id}`,
          passed: failed ? 0 : 1,
          failed: failed ? 1 : 0,
        });
        continue;
      }
      if (failed) failures.push({ scenario, id: check.id, message: check.errorMessage ?? '' });
      else if (check.status === 'WARNING')
        warnings.push({ scenario, id: check.id, message: check.errorMessage ?? '' });
    }
  }
  return { failures, deferred, warnings, excepted };
}
