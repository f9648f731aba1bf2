/**
 * The sealed `requestState` of a multi-round request: what the next round needs, carried by the
 * client and trusted only because nobody but a server holding the key could have written it.
 *
 * The 2026-07-28 era keeps nothing between requests, and any replica may receive a retry, so a
 * round's answers, the handler's own state and what the state was issued for travel inside it.
 * The client controls those bytes, so they are sealed with AES-256-GCM (authenticated encryption:
 * a changed byte fails the tag check, and the client cannot read the answers of other rounds or the
 * handler's state either). The seal binds the method, the tool, prompt or resource, a digest of the
 * original arguments, the caller's principal (when it has one) and an expiry, so a state cannot be
 * replayed against another call, by another caller, or late.
 *
 * The key comes from the server option `requestStateKey`, the same on every replica; without it each
 * process draws a random key, and a retry reaching another process is refused as tampered.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { ProtocolError } from '../protocol/protocol-error.js';
import { derivedKey, keyMaterial } from './request-state-key.js';

/** What a round leaves for the next one. */
export interface RoundState {
  /** `tools/call`, `prompts/get` or `resources/read`. */
  method: string;
  /** The tool or prompt name, or the resource URI. */
  target: string;
  /** argumentsDigest() of the arguments the first round was called with. */
  digest: string;
  /** principalKey of the caller it was issued to; absent without auth. */
  principal?: string;
  /** Every answer so far, by question key. */
  answers: Record<string, unknown>;
  /** The keys the last round asked: only their answers are taken from the retry. */
  asked: string[];
  /** The handler's own state (the explicit form), if it gave one. */
  state?: unknown;
  /** The chain id every round of this request shares (mrtr-chain.ts), minted at its first round. */
  chain: string;
}

interface Sealed extends RoundState {
  /** ms since the epoch after which the state is refused. */
  expiresAt: number;
}

const VERSION = 'w1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Also authenticated: a token sealed for another purpose under the same key is refused. */
const ASSOCIATED = Buffer.from('weft requestState v1');
/** The HKDF purpose of the sealing key (request-state-key.ts). */
const PURPOSE = 'weft requestState v1 aes-256-gcm';

export interface RequestStateOptions {
  /** Shared by every replica; at least 32 random bytes, as a Buffer or base64/hex text. */
  key?: string | Uint8Array;
  /** How long a round's state stays valid (default 10 minutes). */
  ttlMs?: number;
}

/** Why a state was refused, named in the error's data so a client (or its developer) can tell. */
export type StateProblem = 'malformed' | 'tampered' | 'expired' | 'mismatch';

/** What a state is bound to: the request it was issued for, and to whom. */
export type Origin = Pick<RoundState, 'method' | 'target' | 'digest' | 'principal'>;

function refused(problem: StateProblem, message: string): ProtocolError {
  return ProtocolError.invalidParams(message, { requestState: problem });
}

export class RequestStateSeal {
  readonly #key: Buffer;
  readonly #ttlMs: number;

  constructor(options: RequestStateOptions = {}) {
    // Without a key, random material per process; either way the seal uses its own derived key.
    const material = options.key === undefined ? randomBytes(32) : keyMaterial(options.key);
    this.#key = derivedKey(material, PURPOSE);
    this.#ttlMs = options.ttlMs ?? 10 * 60_000;
  }

  seal(round: RoundState, now = Date.now()): string {
    const body: Sealed = { ...round, expiresAt: now + this.#ttlMs };
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(ASSOCIATED);
    const sealed = Buffer.concat([cipher.update(JSON.stringify(body), 'utf8'), cipher.final()]);
    return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url')}`;
  }

  /**
   * The round a retry's `requestState` carries, once it is proved authentic, unexpired and issued
   * for this very request; otherwise a -32602 that says which of those failed.
   */
  open(token: unknown, expected: Origin, now = Date.now()): RoundState {
    if (typeof token !== 'string' || !token.startsWith(`${VERSION}.`)) {
      throw refused(
        'malformed',
        'requestState is not one this server issued (it must be the exact string from the input_required result)',
      );
    }
    const bytes = Buffer.from(token.slice(VERSION.length + 1), 'base64url');
    let body: Sealed;
    try {
      if (bytes.length <= IV_BYTES + TAG_BYTES) throw new Error('short');
      const decipher = createDecipheriv('aes-256-gcm', this.#key, bytes.subarray(0, IV_BYTES));
      decipher.setAAD(ASSOCIATED);
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      const plain = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
      body = JSON.parse(plain.toString('utf8')) as Sealed;
    } catch {
      throw refused(
        'tampered',
        'requestState failed its integrity check: it was altered, or sealed under another key ' +
          '(replicas must share the server option requestStateKey); start the request again without it',
      );
    }
    if (!(now <= body.expiresAt)) {
      throw refused(
        'expired',
        `requestState expired at ${new Date(body.expiresAt).toISOString()}; start the request again without it`,
      );
    }
    if (body.principal !== expected.principal) {
      // Nothing about whose it was: only that it is not this caller's.
      throw refused(
        'mismatch',
        'requestState was issued to another caller; start the request again without it',
      );
    }
    if (body.method !== expected.method || body.target !== expected.target) {
      throw refused(
        'mismatch',
        `requestState was issued for ${body.method} of "${body.target}", not ${expected.method} of "${expected.target}"`,
      );
    }
    if (body.digest !== expected.digest) {
      throw refused(
        'mismatch',
        `requestState was issued for other arguments of ${expected.method} "${expected.target}"; ` +
          'a retry must repeat the original arguments',
      );
    }
    const { expiresAt: _expiresAt, ...round } = body;
    return round;
  }
}

/** A digest of a request's arguments that does not depend on the order of their keys. */
export function argumentsDigest(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('base64url');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
