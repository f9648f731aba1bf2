/**
 * A flood over raw stdio against the demo server: 2,000 mixed calls sent in one burst (inline and
 * pooled, some past their deadline), 10% of them cancelled at random moments. Every id must be
 * answered at most once, every call that was not cancelled exactly once, the bounded queue must
 * refuse the excess as "overloaded" instead of growing, and the server must answer `ping` after.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { errorCode, type Message, RawStdioClient } from './raw-stdio-client.js';

const DEMO = fileURLToPath(new URL('../../examples/demo-server.js', import.meta.url));
const FAULT_SERVER = fileURLToPath(new URL('./fault-server.js', import.meta.url));
const CALLS = 2_000;
const CANCEL_SHARE = 0.1;

/** A small deterministic generator, so a failing flood can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

function residentMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

test(`${CALLS} mixed calls with ${CANCEL_SHARE * 100}% cancelled: none lost, none answered twice`, async (t) => {
  const client = new RawStdioClient(DEMO, ['--stdio', '--threads', '2', '--timeout-ms', '250']);
  try {
    await client.initialize();
    const next = random(Number(process.env.WEFT_FLOOD_SEED ?? 20261130));
    const calls: Array<{ id: number; params: Record<string, unknown> }> = [];
    for (let i = 0; i < CALLS; i++) {
      const pick = next();
      const params =
        pick < 0.3
          ? { name: 'echo', arguments: { text: `flood ${i}` } }
          : pick < 0.6
            ? { name: 'wait', arguments: { ms: Math.floor(next() * 400) } } // past 250 ms: timeout
            : pick < 0.85
              ? { name: 'fib', arguments: { n: Math.floor(next() * 22) } }
              : { name: 'spin', arguments: { ms: Math.floor(next() * 400) } };
      calls.push({ id: client.newId(), params });
    }
    const cancelled = new Set<number>();
    for (const call of calls) if (next() < CANCEL_SHARE) cancelled.add(call.id);

    const lines = calls.map(({ id, params }) =>
      JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }),
    );
    client.sendRaw(`${lines.join('\n')}\n`);
    // Cancels arrive over the next half second: some hit queued calls, some running, some finished.
    const cancelIds = [...cancelled];
    for (let sent = 0; sent < cancelIds.length; ) {
      const batch = cancelIds.slice(sent, sent + 20);
      sent += batch.length;
      for (const requestId of batch) client.notify('notifications/cancelled', { requestId, reason: 'flood' });
      await new Promise((resolve) => setTimeout(resolve, Math.floor(next() * 25)));
    }
    const peakMb = residentMb(client.pid);

    const settled = () => calls.every(({ id }) => cancelled.has(id) || client.answers.has(id));
    const until = Date.now() + 60_000;
    while (!settled() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
    await new Promise((resolve) => setTimeout(resolve, 300)); // room for a wrongful late answer

    let overloaded = 0;
    let results = 0;
    for (const { id } of calls) {
      const answers: Message[] = client.answers.get(id) ?? [];
      assert.ok(answers.length <= 1, `id ${id} answered ${answers.length} times`);
      if (!cancelled.has(id)) assert.equal(answers.length, 1, `id ${id} was lost`);
      const answer = answers[0];
      if (answer && errorCode(answer) === -32010) overloaded++;
      else if (answer && 'result' in answer) results++;
      else if (answer) assert.fail(`unexpected answer ${JSON.stringify(answer).slice(0, 300)}`);
    }
    const silent = calls.filter(({ id }) => !client.answers.has(id)).length;
    t.diagnostic(
      `results ${results}, overloaded ${overloaded}, unanswered (cancelled) ${silent}, peak RSS ${peakMb.toFixed(0)} MB`,
    );
    assert.ok(
      overloaded > 0,
      'the burst exceeded the queue, so some calls must have been refused as overloaded',
    );
    assert.ok(results > CALLS / 2, `only ${results} calls produced results`);
    assert.ok(peakMb < 600, `resident memory reached ${peakMb.toFixed(0)} MB`);
    assert.deepEqual((await client.request('ping')).result, {});
    assert.deepEqual(client.garbage, []);
    const after = await client.call('echo', { text: 'after the flood' });
    assert.equal((after.result as { content: Array<{ text: string }> }).content[0]!.text, 'after the flood');
  } finally {
    client.kill();
    await client.exited;
  }
});

test('a client that does not read its answers is not read from: memory stays bounded, nothing is lost', async (t) => {
  const client = new RawStdioClient(DEMO, ['--stdio']);
  try {
    await client.initialize();
    const before = residentMb(client.pid);
    client.child.stdout!.pause(); // stop reading: answers back up into the server
    const text = 'q'.repeat(64 * 1024);
    const REQUESTS = 200; // 12.8 MiB of answers if the server kept reading and buffering
    const lines: string[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      lines.push(
        JSON.stringify({
          jsonrpc: '2.0',
          id: `slow-${i}`,
          method: 'tools/call',
          params: { name: 'echo', arguments: { text } },
        }),
      );
    }
    const payload = `${lines.join('\n')}\n`;
    client.sendRaw(payload);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const during = residentMb(client.pid);
    // The server stopped reading: most of what we wrote still waits on our side of the pipe.
    const unread = client.child.stdin!.writableLength;
    client.child.stdout!.resume();
    const until = Date.now() + 30_000;
    while (client.answers.size < REQUESTS + 1 && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    t.diagnostic(
      `resident memory ${before.toFixed(0)} MB before, ${during.toFixed(0)} MB while not reading; ` +
        `${(unread / 2 ** 20).toFixed(1)} of ${(payload.length / 2 ** 20).toFixed(1)} MiB left unread`,
    );
    assert.ok(unread > payload.length / 2, 'the server should stop reading from a client that does not read');
    assert.ok(
      during - before < 48,
      `memory grew by ${(during - before).toFixed(0)} MB while the client did not read`,
    );
    for (let i = 0; i < REQUESTS; i++) assert.equal(client.answers.get(`slow-${i}`)?.length, 1, `slow-${i}`);
  } finally {
    client.kill();
    await client.exited;
  }
});

test('slow inline calls past maxCallsInFlight are refused as overloaded, not parked', async () => {
  const client = new RawStdioClient(FAULT_SERVER, ['--max-calls-in-flight', '100']);
  try {
    await client.initialize();
    const lines: string[] = [];
    for (let i = 0; i < 300; i++) {
      lines.push(
        JSON.stringify({
          jsonrpc: '2.0',
          id: `parked-${i}`,
          method: 'tools/call',
          params: { name: 'sleep', arguments: { ms: 1_000 } },
        }),
      );
    }
    client.sendRaw(`${lines.join('\n')}\n`);
    const until = Date.now() + 15_000;
    while (client.answers.size < 301 && Date.now() < until)
      await new Promise((resolve) => setTimeout(resolve, 50));
    let overloaded = 0;
    let slept = 0;
    for (let i = 0; i < 300; i++) {
      const answers = client.answers.get(`parked-${i}`) ?? [];
      assert.equal(answers.length, 1, `parked-${i}`);
      if (errorCode(answers[0]!) === -32010) overloaded++;
      else slept++;
    }
    assert.equal(slept, 100);
    assert.equal(overloaded, 200);
    assert.deepEqual((await client.request('ping')).result, {});
  } finally {
    client.kill();
    await client.exited;
  }
});
