/**
 * The CPU work behind the peers' tools, written once so every peer runs exactly the same loops as
 * weft's example tools (examples/tools/*.ts): a comparison is only fair when the work is identical.
 * Plain functions with no imports beyond node:crypto, so a Piscina worker can load this file too.
 */
import { createHash } from 'node:crypto';

/** A busy loop that never yields, like weft's `spin`: the runaway-tool stand-in. */
export function spin(ms: number): string {
  const until = Date.now() + ms;
  let spins = 0;
  while (Date.now() < until) spins++;
  return `spun ${ms} ms (${spins} iterations)`;
}

/** Naive recursive Fibonacci, like weft's `fib`. */
export function fibonacci(n: number): number {
  return n < 2 ? n : fibonacci(n - 1) + fibonacci(n - 2);
}

/** Iterated SHA-256, like weft's `hash_chain` (minus its checkpoints, which peers have no use for). */
export function hashChain(text: string, rounds: number): string {
  let digest: Buffer = Buffer.from(text, 'utf8');
  for (let round = 1; round <= rounds; round++) digest = createHash('sha256').update(digest).digest();
  return digest.toString('hex');
}
