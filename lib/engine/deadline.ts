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

/**
 * What is left of `budgetMs` for work starting now, when the request arrived at `arrivedAt`
 * (`performance.now()` ms): a deadline counts from the request's arrival, so the time the server
 * spent before the work could start (the first call loading a schema compiler, a middleware, a
 * queue of messages read in one chunk) is the call's, not a gift on top. 0 stays "no deadline"; a
 * budget already spent leaves 1 ms, so the call is decided a timeout at once rather than never.
 */
export function budgetLeftMs(budgetMs: number, arrivedAt: number, now = performance.now()): number {
  if (budgetMs <= 0) return 0;
  return Math.max(1, Math.round(budgetMs - (now - arrivedAt)));
}
