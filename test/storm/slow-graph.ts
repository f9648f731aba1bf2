/**
 * A module that is slow to load on purpose, for the storm suite: a pool thread that imports the
 * storm's tools spends a while evaluating this first, so terminations land during loads.
 */
const until = Date.now() + 15;
while (Date.now() < until) {}

/** Something for the tools to use, so the import is not dropped. */
export const loadedAt = Date.now();
