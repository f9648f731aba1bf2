/**
 * The principal of a stdio server. Stdio has no OAuth (the specification says it SHOULD NOT use
 * it: its credentials come from the environment), so `listen({ stdio: { principal } })` may name a
 * fixed one, checked and frozen here, and scope checks and bindings work there as over HTTP.
 */
import type { StdioListenOptions } from '../server-options.js';
import { makePrincipal, type Principal } from './principal.js';

/** The fixed principal of `listen({ stdio: { principal } })`, checked and frozen; undefined for `true`. */
export function stdioPrincipal(stdio: true | StdioListenOptions): Principal | undefined {
  if (stdio === true) return undefined;
  if (typeof stdio !== 'object' || stdio === null) {
    throw new TypeError('listen: stdio must be true or { principal }');
  }
  for (const key of Object.keys(stdio)) {
    if (key !== 'principal') throw new TypeError(`listen: unknown stdio option "${key}". Known: principal`);
  }
  const { principal } = stdio;
  if (principal === undefined) return undefined;
  if (typeof principal?.subject !== 'string' || principal.subject === '') {
    throw new TypeError(
      'listen: stdio.principal must be a principal with a subject, e.g. makePrincipal({ subject: "local-user", scopes: [...] })',
    );
  }
  return makePrincipal({ ...principal, claims: { ...principal.claims } });
}
