/**
 * The load client: raw JSON-RPC over any wire, with no SDK in the way. It does the legacy handshake
 * (initialize, then notifications/initialized), numbers requests, times each one from send to reply
 * with a monotonic clock, and answers the few requests a server may send back (ping, roots/list) so
 * no peer stalls waiting on its client.
 */
import { performance } from 'node:perf_hooks';
import type { Wire, WireMessage } from './wire.js';

export const PROTOCOL_VERSION = '2025-06-18';

export interface Reply {
  latencyMs: number;
  /** The JSON-RPC error, when the server answered with one. */
  error?: { code: number; message: string };
  /** The result, when there is one. */
  result?: Record<string, unknown>;
}

export interface PendingRequest {
  id: number;
  sentAt: number;
  reply: Promise<Reply>;
}

interface Waiting {
  sentAt: number;
  resolve: (reply: Reply) => void;
  reject: (error: Error) => void;
}

export class LoadClient {
  readonly #wire: Wire;
  readonly #waiting = new Map<number, Waiting>();
  #nextId = 1;
  #closedReason: string | undefined;
  #strayReplies = 0;

  constructor(wire: Wire) {
    this.#wire = wire;
    wire.onMessage = (message) => this.#onMessage(message);
    wire.onClose = (reason) => this.#failAll(reason);
  }

  get inFlight(): number {
    return this.#waiting.size;
  }

  /**
   * Replies that answered no request still waiting: a second answer to one request, or an answer
   * after `forget`. The fleet scenario counts them as doubled answers.
   */
  get strayReplies(): number {
    return this.#strayReplies;
  }

  async initialize(): Promise<void> {
    const reply = await this.request('initialize', {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'weft-bench', version: '0.1.0' },
    }).reply;
    if (reply.error) throw new Error(`initialize failed: ${reply.error.message}`);
    const version = reply.result?.protocolVersion;
    this.#wire.negotiated(typeof version === 'string' ? version : PROTOCOL_VERSION);
    this.notify('notifications/initialized');
  }

  request(method: string, params: Record<string, unknown>): PendingRequest {
    const id = this.#nextId++;
    const sentAt = performance.now();
    const reply = new Promise<Reply>((resolve, reject) => {
      if (this.#closedReason) {
        reject(new Error(this.#closedReason));
        return;
      }
      this.#waiting.set(id, { sentAt, resolve, reject });
    });
    this.#wire.send({ jsonrpc: '2.0', id, method, params });
    return { id, sentAt, reply };
  }

  /** A tools/call; the reply promise settles with the result or the JSON-RPC error. */
  call(name: string, args: Record<string, unknown>): PendingRequest {
    return this.request('tools/call', { name, arguments: args });
  }

  notify(method: string, params?: Record<string, unknown>): void {
    this.#wire.send(params ? { jsonrpc: '2.0', method, params } : { jsonrpc: '2.0', method });
  }

  /** Sends notifications/cancelled for a pending request, as a client does when it gives up. */
  cancel(id: number, reason: string): void {
    this.notify('notifications/cancelled', { requestId: id, reason });
  }

  /** Stops waiting for a request (after a cancel the server may never answer it). */
  forget(id: number): void {
    this.#waiting.delete(id);
  }

  close(): Promise<void> {
    this.#failAll('client closed');
    return this.#wire.close();
  }

  #onMessage(message: WireMessage): void {
    const { id } = message;
    if ('method' in message) {
      if (id !== undefined) this.#answerServerRequest(id, String(message.method));
      return; // notifications (progress, logs, list_changed) are not measured
    }
    if (typeof id !== 'number') return;
    const waiting = this.#waiting.get(id);
    if (!waiting) {
      this.#strayReplies++;
      return;
    }
    this.#waiting.delete(id);
    const reply: Reply = { latencyMs: performance.now() - waiting.sentAt };
    if (message.error) reply.error = message.error as Reply['error'];
    else reply.result = message.result as Record<string, unknown>;
    waiting.resolve(reply);
  }

  #answerServerRequest(id: unknown, method: string): void {
    if (method === 'ping') this.#wire.send({ jsonrpc: '2.0', id, result: {} });
    else if (method === 'roots/list') this.#wire.send({ jsonrpc: '2.0', id, result: { roots: [] } });
    else
      this.#wire.send({ jsonrpc: '2.0', id, error: { code: -32601, message: `Not supported: ${method}` } });
  }

  #failAll(reason: string): void {
    this.#closedReason ??= reason;
    const waiting = [...this.#waiting.values()];
    this.#waiting.clear();
    for (const entry of waiting) entry.reject(new Error(reason));
  }
}
