/**
 * The soak's mixed load, one operation at a time: each picks a random piece of real traffic and
 * counts every request it sends in the ledger. Over Streamable HTTP: legacy sessions opened, used
 * (calls, timeouts, cancels, tasks) and deleted; 2026-07-28 stateless calls, MRTR rounds, tasks
 * created, polled and cancelled, client cancels (the stream closed), malformed JSON, wrong and
 * large arguments. Over stdio: one long legacy session with the same calls, cancels and tasks.
 */
import type { LoadClient } from '../load/load-client.js';
import type { HttpAnswer, HttpExchanges } from './http-exchange.js';
import type { RequestLedger } from './request-ledger.js';

const MODERN = '2026-07-28';
const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const LARGE_TEXT = 'x'.repeat(512 * 1024);

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let nextId = 1;

/** The calls every era gets: [tool, arguments], answered with a result or a tool error. */
const CALLS: [string, Record<string, unknown>][] = [
  ['echo', { text: 'hello' }],
  ['echo', { text: 'hello' }],
  ['wait', { ms: 5 }],
  ['wait', { ms: 1000 }], // past its 300 ms deadline: a timeout
  ['burn', { ms: 5 }],
  ['burn', { ms: 1000 }], // past its 150 ms deadline: the thread is terminated
  ['fail_inline', {}],
  ['fail_blocking', {}],
  ['end_thread', {}],
  ['echo', { text: 42 }], // wrong arguments
  ['no_such_tool', {}],
  ['echo', { text: LARGE_TEXT }],
];

function answerOf(answer: HttpAnswer | undefined, id: number): Record<string, unknown> | undefined {
  return answer?.messages.find((message) => message.id === id);
}

function answered(id: number) {
  return (answer: HttpAnswer) => {
    if (answer.status >= 400 && answer.messages.length > 0) return 'answered' as const; // an HTTP-level refusal is an answer
    if (!answerOf(answer, id)) throw new Error(`HTTP ${answer.status} without the answer to ${id}`);
    return 'answered' as const;
  };
}

export class SoakOps {
  constructor(
    readonly http: HttpExchanges,
    readonly ledger: RequestLedger,
  ) {}

  /** One 2026-07-28 request: envelope in _meta, routing headers. */
  #modern(method: string, params: Record<string, unknown>, signal?: AbortSignal, tasks = false) {
    const id = nextId++;
    const name = method === 'tools/call' ? String(params.name) : undefined;
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientCapabilities': {
            elicitation: {},
            ...(tasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {}),
          },
          'io.modelcontextprotocol/clientInfo': { name: 'weft-soak', version: '0.1.0' },
        },
      },
    });
    const headers: Record<string, string> = { 'mcp-protocol-version': MODERN, 'mcp-method': method };
    if (name !== undefined && /^[\x20-\x7e]*$/.test(name)) headers['mcp-name'] = name;
    return { id, sent: this.http.send('POST', headers, body, signal) };
  }

  async modernCall(): Promise<void> {
    const [name, args] = pick(CALLS);
    const { id, sent } = this.#modern('tools/call', { name, arguments: args });
    await this.ledger.track(`modern ${name}`, sent, answered(id));
  }

  /** The client closes its stream mid-call: in this era that cancels the call. */
  async modernCancel(): Promise<void> {
    const abort = new AbortController();
    const { sent } = this.#modern(
      'tools/call',
      { name: pick(['wait', 'burn']), arguments: { ms: 2000 } },
      abort.signal,
    );
    setTimeout(() => abort.abort(), 20 + Math.random() * 60);
    await this.ledger.abandoned('modern cancel', sent);
  }

  /** A multi-round request: input_required, then the retry with the answer and the sealed state. */
  async modernRounds(): Promise<void> {
    const first = this.#modern('tools/call', { name: 'ask_name', arguments: {} });
    const round = await this.ledger.track('modern mrtr round 1', first.sent, answered(first.id));
    const result = answerOf(round, first.id)?.result as Record<string, unknown> | undefined;
    if (result?.resultType !== 'input_required') return;
    const retry = this.#modern('tools/call', {
      name: 'ask_name',
      arguments: {},
      inputResponses: { name: { action: 'accept', content: { name: 'soak' } } },
      requestState: result.requestState,
    });
    await this.ledger.track('modern mrtr round 2', retry.sent, answered(retry.id));
  }

  /** A task: created, then either cancelled or polled until it ends. */
  async modernTask(): Promise<void> {
    const created = this.#modern(
      'tools/call',
      { name: 'task_sleep', arguments: { ms: Math.round(100 + Math.random() * 400) } },
      undefined,
      true,
    );
    const answer = await this.ledger.track('modern task create', created.sent, answered(created.id));
    const taskId = (answerOf(answer, created.id)?.result as { taskId?: string } | undefined)?.taskId;
    if (!taskId) return;
    if (Math.random() < 0.4) {
      const cancel = this.#modern('tasks/cancel', { taskId }, undefined, true);
      await this.ledger.track('modern task cancel', cancel.sent, answered(cancel.id));
      return;
    }
    for (let poll = 0; poll < 50; poll++) {
      await sleep(100);
      const get = this.#modern('tasks/get', { taskId }, undefined, true);
      const state = await this.ledger.track('modern task get', get.sent, answered(get.id));
      const status = (answerOf(state, get.id)?.result as { status?: string } | undefined)?.status;
      if (status !== 'working' && status !== 'input_required') return;
    }
  }

  /** Bytes that are not JSON: 400, the server carries on. */
  async malformed(): Promise<void> {
    const sent = this.http.send(
      'POST',
      { 'mcp-protocol-version': MODERN },
      '{"jsonrpc":"2.0","id":1,"method":',
    );
    await this.ledger.track('malformed json', sent, (answer) => {
      if (answer.status !== 400) throw new Error(`malformed JSON answered ${answer.status}`);
      return 'answered';
    });
  }

  /** A whole legacy session: initialize, a few calls (a timeout, a cancel, a task among them), DELETE. */
  async legacySession(): Promise<void> {
    const init = nextId++;
    const body = (id: number, method: string, params: Record<string, unknown>) =>
      JSON.stringify({ jsonrpc: '2.0', id, method, params });
    const opened = await this.ledger.track(
      'legacy initialize',
      this.http.send(
        'POST',
        {},
        body(init, 'initialize', {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'weft-soak', version: '0.1.0' },
        }),
      ),
      answered(init),
    );
    const session = opened?.headers['mcp-session-id'];
    if (typeof session !== 'string') return;
    const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    await this.http.send(
      'POST',
      headers,
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    );
    for (let n = Math.floor(Math.random() * 3); n >= 0; n--) {
      const id = nextId++;
      const roll = Math.random();
      if (roll < 0.15) {
        const abort = new AbortController();
        const sent = this.http.send(
          'POST',
          headers,
          body(id, 'tools/call', { name: 'wait', arguments: { ms: 2000 } }),
          abort.signal,
        );
        setTimeout(() => {
          void this.http
            .send(
              'POST',
              headers,
              JSON.stringify({
                jsonrpc: '2.0',
                method: 'notifications/cancelled',
                params: { requestId: id },
              }),
            )
            .catch(() => {});
          abort.abort();
        }, 30);
        await this.ledger.abandoned('legacy cancel', sent);
      } else if (roll < 0.3) {
        const sent = this.http.send(
          'POST',
          headers,
          body(id, 'tools/call', { name: 'task_sleep', arguments: { ms: 50 }, task: {} }),
        );
        const created = await this.ledger.track('legacy task create', sent, answered(id));
        const taskId = (answerOf(created, id)?.result as { task?: { taskId?: string } } | undefined)?.task
          ?.taskId;
        if (!taskId) continue;
        const next = nextId++;
        await this.ledger.track(
          'legacy task result',
          this.http.send('POST', headers, body(next, 'tasks/result', { taskId })),
          answered(next),
        );
      } else {
        const [name, args] = pick(CALLS);
        await this.ledger.track(
          `legacy ${name}`,
          this.http.send('POST', headers, body(id, 'tools/call', { name, arguments: args })),
          answered(id),
        );
      }
    }
    await this.ledger.track(
      'legacy delete',
      this.http.send('DELETE', { 'mcp-session-id': session }),
      (answer) => {
        if (answer.status !== 200) throw new Error(`DELETE answered ${answer.status}`);
        return 'answered';
      },
    );
  }

  /** One request on the long stdio session: a call, a cancel, or a task. */
  async stdio(client: LoadClient): Promise<void> {
    const roll = Math.random();
    if (roll < 0.15) {
      const pending = client.call('wait', { ms: 2000 });
      await sleep(20);
      client.cancel(pending.id, 'soak: the client gave up');
      client.forget(pending.id);
      this.ledger.gaveUp('stdio cancel');
      return;
    }
    if (roll < 0.3) {
      const created = await this.ledger.track(
        'stdio task create',
        client.request('tools/call', { name: 'task_sleep', arguments: { ms: 50 }, task: {} }).reply,
      );
      const taskId = (created?.result as { task?: { taskId?: string } } | undefined)?.task?.taskId;
      if (!taskId) return;
      const method = Math.random() < 0.4 ? 'tasks/cancel' : 'tasks/result';
      await this.ledger.track(`stdio ${method}`, client.request(method, { taskId }).reply);
      return;
    }
    const [name, args] = pick(CALLS);
    await this.ledger.track(`stdio ${name}`, client.call(name, args).reply);
  }
}
