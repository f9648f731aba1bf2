/**
 * The effective deadline of a call: the earliest of the non-zero limits that apply.
 *
 * Zero (or absent) means "no limit from this source", so a tool can tighten the server's budget but
 * never relax it, and a per-call cap can only shorten what the tool allows.
 */
export function effectiveBudgetMs(...limits: Array<number | undefined>): number {
  let budget = 0;
  for (const limit of limits) {
    if (limit !== undefined && limit > 0 && (budget === 0 || limit < budget)) budget = limit;
  }
  return budget;
}
