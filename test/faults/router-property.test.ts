/**
 * A property test of the router's one promise under arbitrary input: every request is answered
 * exactly once (at most once when it was cancelled), a notification is never answered, a message
 * with no usable id is answered with `id: null`, nothing crashes and no prototype is polluted.
 *
 * fast-check throws random JSON, well-formed MCP requests and mutations of them at one in-process
 * server (the demo's tools, blocking ones included, and tools that return random unsendable or
 * invalid results, unsendable-values.ts). The expected answers are computed from the JSON-RPC rules
 * themselves (`expectedAnswer` below), not from the router's code; every tools/call result must
 * pass the official SDK's own CallToolResult schema. Messages are encoded as a transport encodes
 * them (`connection.encode`) and parsed back, so what is checked is what would go on the wire.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { addDemoTools } from '../../examples/demo-tools.js';
import { McpServer } from '../../lib/index.js';
import type { JsonRpcMessage } from '../../lib/protocol/json-rpc.js';
import {
  POISONS,
  recipeInline,
  recipeThread,
  UNSENDABLE_KINDS,
  unsendableInline,
  unsendableThread,
} from './unsendable-values.js';

const RUNS = 40;
/** A failing run waits out its answers, so shrinking is slow: stop after a minute with what it has. */
const SHRINK_LIMIT = { interruptAfterTimeLimit: 60_000, markInterruptAsFailure: true };
const MESSAGES_PER_RUN = 50;

const logged: string[] = [];
const server = addDemoTools(
  new McpServer({
    name: 'property',
    version: '0',
    timeoutMs: 200,
    pool: { maxThreads: 2, maxQueue: 64 },
    logError: (message) => logged.push(message),
  }),
)
  .tool(recipeInline)
  .tool(recipeThread)
  .tool(unsendableInline)
  .tool(unsendableThread);

after(() => server.close());

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Expected = 'one' | 'at-most-one' | 'none' | 'null-error' | 'id-error';

const isPlainObject = (value: unknown): value is Record<string, Json> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isUsableId = (value: unknown): value is string | number =>
  typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));

/** What JSON-RPC 2.0 (as MCP narrows it: params an object, id never null) says this value gets. */
function expectedAnswer(value: unknown): Expected {
  if (!isPlainObject(value)) return 'null-error'; // arrays too: batches need 2025-03-26
  const withId = (): Expected => (isUsableId(value.id) ? 'id-error' : 'null-error');
  if (value.jsonrpc !== '2.0') return withId();
  if ('method' in value) {
    if (typeof value.method !== 'string' || value.method === '') return withId();
    if ('params' in value && !isPlainObject(value.params)) return withId();
    if (!('id' in value)) return 'none';
    return isUsableId(value.id) ? 'one' : 'null-error';
  }
  if (isUsableId(value.id) && ('result' in value || isPlainObject(value.error))) return 'none';
  return withId();
}

const json = fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>;
const hostileArgs = fc.constantFrom(
  '{"__proto__":{"polluted":"yes"}}',
  '{"constructor":{"prototype":{"polluted":"yes"}}}',
  '{"text":"hi","__proto__":{"toString":"no"}}',
);

const toolCall = fc.record({
  name: fc.oneof(
    fc.constantFrom('echo', 'wait', 'fib', 'primes', 'no_such_tool'),
    fc.string({ maxLength: 6 }),
  ),
  arguments: fc.oneof(
    fc.record({ text: fc.string({ maxLength: 20 }) }),
    fc.record({ ms: fc.integer({ min: 0, max: 400 }) }),
    fc.record({ n: fc.oneof(fc.integer({ min: 0, max: 30 }), fc.double(), fc.string({ maxLength: 3 })) }),
    fc.dictionary(fc.string({ maxLength: 5 }), json, { maxKeys: 3 }),
    json,
  ),
  _meta: fc.option(fc.record({ progressToken: fc.oneof(fc.string({ maxLength: 4 }), fc.integer()) }), {
    nil: undefined,
  }),
});

/** A call to a tool that returns a random value with one poison planted in it (or none). */
const poisonedCall = fc.record({
  name: fc.constantFrom('recipe_inline', 'recipe_thread'),
  arguments: fc.record({
    base: json,
    poison: fc.constantFrom(...POISONS),
    shape: fc.constantFrom('data', 'structured', 'block', 'content'),
    blockType: fc.oneof(
      fc.constantFrom('text', 'image', 'audio', 'resource_link', 'resource'),
      fc.string({ maxLength: 6 }),
    ),
  }),
});

const catalogueCall = fc.record({
  name: fc.constantFrom('unsendable_inline', 'unsendable_thread'),
  arguments: fc.record({ kind: fc.constantFrom(...UNSENDABLE_KINDS) }),
});

const request = fc.oneof(
  { weight: 2, arbitrary: fc.record({ method: fc.constant('tools/call'), params: poisonedCall }) },
  { weight: 1, arbitrary: fc.record({ method: fc.constant('tools/call'), params: catalogueCall }) },
  fc.record({ method: fc.constant('ping') }),
  fc.record({
    method: fc.constant('tools/list'),
    params: fc.record({ cursor: fc.option(json, { nil: undefined }) }),
  }),
  fc.record({ method: fc.constant('tools/call'), params: toolCall }),
  fc.record({ method: fc.constant('logging/setLevel'), params: fc.record({ level: json }) }),
  fc.record({ method: fc.string({ maxLength: 12 }), params: fc.option(json, { nil: undefined }) }),
);

/** A plan for one message; ids are made unique when it is sent, so answers can be attributed. */
type Plan =
  | { kind: 'request'; body: Record<string, unknown>; numericId: boolean }
  | { kind: 'cancel'; target: number }
  | { kind: 'notification'; method: string; params: Json }
  | { kind: 'mutated'; body: Record<string, unknown>; key: string; value: Json | undefined }
  | { kind: 'raw'; value: Json }
  | { kind: 'hostile'; args: string }
  | { kind: 'batch'; members: Plan[] };

const plan: fc.Arbitrary<Plan> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('request' as const), body: request, numericId: fc.boolean() }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), target: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('notification' as const),
      method: fc.constantFrom(
        'notifications/initialized',
        'notifications/cancelled',
        'notifications/whatever',
      ),
      params: json,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('mutated' as const),
      body: request,
      key: fc.constantFrom('jsonrpc', 'id', 'method', 'params', 'result', 'error', '__proto__', 'extra'),
      value: fc.option(json, { nil: undefined }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('raw' as const), value: json }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('hostile' as const), args: hostileArgs }) },
);

/** Plans with JSON-RPC batches mixed in: arrays of 0 to 5 messages, as 2025-03-26 allows. */
const planWithBatches: fc.Arbitrary<Plan> = fc.oneof(
  { weight: 3, arbitrary: plan },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('batch' as const), members: fc.array(plan, { maxLength: 5 }) }),
  },
);

let nextId = 0;
let sentTotal = 0;

/** The value a plan puts on the wire (after a JSON round trip, as a transport would parse it). */
function materialize(step: Plan, sentIds: Array<string | number>): unknown {
  const uniqueId = (numeric: boolean) => (numeric ? 1_000_000 + nextId++ : `req-${nextId++}`);
  switch (step.kind) {
    case 'request':
      return roundTrip({ jsonrpc: '2.0', id: uniqueId(step.numericId), ...step.body });
    case 'cancel': {
      const requestId = sentIds.length > 0 ? sentIds[step.target % sentIds.length] : step.target;
      return { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId } };
    }
    case 'notification':
      return roundTrip({ jsonrpc: '2.0', method: step.method, params: step.params });
    case 'mutated': {
      const body: Record<string, unknown> = { jsonrpc: '2.0', id: uniqueId(false), ...step.body };
      if (step.value === undefined) delete body[step.key];
      else Object.defineProperty(body, step.key, { value: step.value, enumerable: true, writable: true });
      const value = roundTrip(body) as Record<string, unknown>;
      // Keep ids unique whatever the mutation wrote into them.
      if (isUsableId(value.id))
        value.id = typeof value.id === 'number' ? 2_000_000 + nextId++ : `mut-${nextId++}`;
      return value;
    }
    case 'raw': {
      const value = roundTrip(step.value);
      if (isPlainObject(value) && isUsableId(value.id)) value.id = `raw-${nextId++}`;
      return value;
    }
    case 'hostile':
      return JSON.parse(
        `{"jsonrpc":"2.0","id":"hostile-${nextId++}","method":"tools/call","params":{"name":"echo","arguments":${step.args}}}`,
      );
    case 'batch':
      return step.members.map((member) => materialize(member, sentIds));
  }
}

function roundTrip(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

async function settle(check: () => boolean, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** Sends the plans on a fresh session and checks every answer against the JSON-RPC rules. */
async function checkRun(plans: Plan[], protocolVersion?: string): Promise<void> {
  const received: JsonRpcMessage[] = [];
  const connection = server.connect({
    send: (message) => {
      const text = connection.encode(message);
      if (text === undefined) return;
      const parsed = JSON.parse(text) as JsonRpcMessage | JsonRpcMessage[];
      received.push(...(Array.isArray(parsed) ? parsed : [parsed]));
    },
  });
  const toolCalls = new Set<unknown>();
  const sentIds: Array<string | number> = [];
  const expectations = new Map<string | number, Expected>();
  const cancelled = new Set<string | number>();
  let nullErrors = 0;
  if (protocolVersion !== undefined) {
    const id = `init-${nextId++}`;
    expectations.set(id, 'one');
    connection.receive({
      jsonrpc: '2.0',
      id,
      method: 'initialize',
      params: { protocolVersion, capabilities: {}, clientInfo: { name: 'property', version: '0' } },
    });
  }
  const expect = (value: unknown) => {
    const expected = expectedAnswer(value);
    const id = isPlainObject(value) ? value.id : undefined;
    if (expected === 'one' && isPlainObject(value) && value.method === 'tools/call') toolCalls.add(id);
    if (expected === 'null-error') nullErrors++;
    else if (expected === 'one' || expected === 'id-error') {
      expectations.set(id as string | number, expected);
      sentIds.push(id as string | number);
    }
  };
  for (const step of plans) {
    const value = materialize(step, sentIds);
    sentTotal += step.kind === 'batch' ? Math.max(1, step.members.length) : 1;
    // A batch is answered member by member (an empty one is itself invalid), where batches exist.
    if (Array.isArray(value) && protocolVersion === '2025-03-26' && value.length > 0) value.forEach(expect);
    else expect(value);
    // A cancel may stand alone or inside a batch; either way its target may go unanswered.
    const members = step.kind === 'batch' ? step.members : [step];
    const values = Array.isArray(value) && step.kind === 'batch' ? value : [value];
    members.forEach((member, index) => {
      if (member.kind !== 'cancel') return;
      const target = (values[index] as { params: { requestId: string | number } }).params.requestId;
      if (expectations.has(target)) cancelled.add(target);
    });
    assert.doesNotThrow(() => connection.receive(value));
  }

  const answersFor = (id: unknown) =>
    received.filter((message) => 'id' in message && (message as { id: unknown }).id === id);
  const outstanding = () =>
    [...expectations.keys()].some((id) => !cancelled.has(id) && answersFor(id).length === 0);
  await settle(() => !outstanding(), 2_000); // every call has a 200 ms deadline
  await new Promise((resolve) => setTimeout(resolve, 20)); // room for a wrongful second answer

  for (const [id, expected] of expectations) {
    const count = answersFor(id).length;
    if (cancelled.has(id)) assert.ok(count <= 1, `cancelled id ${id} answered ${count} times`);
    else assert.equal(count, 1, `id ${JSON.stringify(id)} (${expected}) answered ${count} times`);
  }
  const answers = received.filter((message) => !('method' in message));
  const nullAnswers = answers.filter((message) => (message as { id: unknown }).id === null);
  assert.equal(nullAnswers.length, nullErrors, 'one id-null error per message without a usable id');
  for (const answer of answers) {
    const id = (answer as { id: string | number | null }).id;
    if (id !== null) assert.ok(expectations.has(id), `answer to an id never requested: ${id}`);
    const code = (answer as { error?: { code: number } }).error?.code;
    assert.notEqual(code, -32603, `internal error: ${JSON.stringify(answer)}`);
    const result = (answer as { result?: unknown }).result;
    if (toolCalls.has(id) && result !== undefined) {
      const checked = CallToolResultSchema.safeParse(result);
      assert.ok(checked.success, `the SDK would reject the result of ${id}: ${JSON.stringify(result)}`);
    }
  }
  connection.close();
  assert.deepEqual(logged, [], 'the server logged an unexpected failure');
  assert.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype was polluted');
}

/** fast-check's own message names the counterexample; the cause says which assertion broke. */
function withCause(error: Error): never {
  throw new Error(`${error.message}\n\nCause: ${String((error as { cause?: unknown }).cause)}`);
}

test(`the router answers every request exactly once across ${RUNS * MESSAGES_PER_RUN} generated messages`, async () => {
  sentTotal = 0;
  await fc
    .assert(
      fc.asyncProperty(
        fc.array(plan, { minLength: MESSAGES_PER_RUN, maxLength: MESSAGES_PER_RUN }),
        (plans) => checkRun(plans),
      ),
      { numRuns: RUNS, ...SHRINK_LIMIT },
    )
    .catch(withCause);
  assert.ok(sentTotal >= RUNS * MESSAGES_PER_RUN, `only ${sentTotal} messages were generated`);
});

test('with JSON-RPC batches (protocol 2025-03-26), each member is answered by the same rules', async () => {
  await fc
    .assert(
      fc.asyncProperty(fc.array(planWithBatches, { minLength: 10, maxLength: 30 }), (plans) =>
        checkRun(plans, '2025-03-26'),
      ),
      { numRuns: 30, ...SHRINK_LIMIT },
    )
    .catch(withCause);
});
