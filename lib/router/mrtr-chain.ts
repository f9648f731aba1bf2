/**
 * The id that ties the rounds of one multi-round (MRTR) request together, for operators
 * (`weft.mrtr.chain` on each round's span). It is random, minted when the first round asks the
 * client something, and travels in the sealed `requestState`, so every retry of that request reads
 * the same id back and nobody else's does: two identical calls by two users are two chains. A
 * digest of method, tool and arguments would give every identical call the same id.
 */
import { randomBytes } from 'node:crypto';
import type { CallTrace } from '../engine/call-observer.js';
import type { ObservedRequest } from './request-observer.js';

/** 96 random bits, base64url (16 characters): unique across any realistic number of chains. */
export function newMrtrChain(): string {
  return randomBytes(12).toString('base64url');
}

/** Tells the request's telemetry, when it is observed, which chain the request belongs to. */
export function noteMrtrChain(trace: CallTrace | undefined, chain: string): void {
  (trace?.request as ObservedRequest | undefined)?.noteMrtrChain?.(chain);
}
