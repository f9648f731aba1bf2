/**
 * `weft call` with argument data too large for a command line, as a user runs it: `key=@file` (an
 * image's bytes go as base64 to a string property, a text file as its text), `key=@-` and `--args -`
 * from stdin, so a multi-megabyte argument never meets "Argument list too long". Also the command's
 * own manners: `weft call --help` prints how words become arguments, and what it prints ends with a
 * newline.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { McpServer } from '../../lib/index.js';

const CLI = fileURLToPath(new URL('../../lib/cli.js', import.meta.url));

const sha = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

// A 4 MiB limit: the test's largest argument (3 MB of text, 2.7 MB of base64) fits, a 5 MB one does not.
const server = new McpServer({ name: 'argument-files', version: '1.0.0', maxMessageBytes: 4 * 1024 * 1024 })
  .tool({
    name: 'describe',
    description: 'Says what it was given',
    inputSchema: {
      type: 'object',
      properties: {
        image: { type: 'string' },
        note: { type: 'string' },
        encoded: { type: 'string', contentEncoding: 'base64' },
        count: { type: 'integer' },
        options: { type: 'object' },
      },
    },
    handler: ({ image, note, encoded, count, options }) => ({
      image: image === undefined ? null : sha(Buffer.from(image, 'base64')),
      note: note ?? null,
      encoded: encoded ?? null,
      count: count ?? null,
      options: options ?? null,
    }),
  })
  .tool({
    name: 'fails',
    inputSchema: { type: 'object' },
    handler: () => ({ content: [{ type: 'text', text: 'nope' }], isError: true }),
  });

let url: string;
let folder: string;
before(async () => {
  await server.listen({ http: { port: 0, host: '127.0.0.1' }, handleSignals: false });
  url = `http://127.0.0.1:${server.addresses.http!.port}/mcp`;
  folder = mkdtempSync(join(tmpdir(), 'weft-call-files-'));
});
after(async () => {
  await server.close();
  rmSync(folder, { recursive: true, force: true });
});

/** Runs `weft ...args` with `stdin` written to it; resolves with its exit code and output. */
function weft(
  args: string[],
  stdin: string | Buffer = '',
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk;
  });
  child.stdin.end(stdin);
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

const given = (stdout: string) => JSON.parse(stdout) as Record<string, unknown>;

describe('weft call key=@file', () => {
  it('sends a binary file to a string property as base64, byte for byte', async () => {
    // 1.5 MB: as base64, ten times what Linux lets one command-line argument be (128 KiB).
    const image = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0]), randomBytes(1_500_000)]);
    writeFileSync(join(folder, 'photo.png'), image);
    const { code, stdout, stderr } = await weft([
      'call',
      url,
      'describe',
      `image=@${join(folder, 'photo.png')}`,
    ]);
    assert.equal(code, 0, stderr);
    assert.equal(given(stdout).image, sha(image));
  });

  it('sends a text file as its text, or as base64 where the property says contentEncoding', async () => {
    writeFileSync(join(folder, 'note.md'), 'héllo\nworld\n');
    writeFileSync(join(folder, 'count.txt'), '42\n');
    writeFileSync(join(folder, 'options.json'), '{"deep": [1, 2]}');
    const note = join(folder, 'note.md');
    const { code, stdout, stderr } = await weft([
      'call',
      url,
      'describe',
      `note=@${note}`,
      `encoded=@${note}`,
      `count=@${join(folder, 'count.txt')}`,
      `options:=@${join(folder, 'options.json')}`,
    ]);
    assert.equal(code, 0, stderr);
    assert.deepEqual(given(stdout), {
      image: null,
      note: 'héllo\nworld\n',
      encoded: Buffer.from('héllo\nworld\n').toString('base64'),
      count: 42,
      options: { deep: [1, 2] },
    });
  });

  it('reads stdin for key=@- and for --args -, and keeps \\@ literal', async () => {
    const image = randomBytes(2_000_000);
    const fromStdin = await weft(['call', url, 'describe', 'image=@-', 'note=\\@alice'], image);
    assert.equal(fromStdin.code, 0, fromStdin.stderr);
    assert.equal(given(fromStdin.stdout).image, sha(image));
    assert.equal(given(fromStdin.stdout).note, '@alice');
    const big = 'z'.repeat(3_000_000);
    const args = await weft(
      ['call', url, 'describe', '--args', '-', 'count=7'],
      JSON.stringify({ note: big, count: 1 }),
    );
    assert.equal(args.code, 0, args.stderr);
    assert.deepEqual([(given(args.stdout).note as string).length, given(args.stdout).count], [big.length, 7]);
  });

  it('exits 2 with a message that says what to do for a missing file or stdin asked twice', async () => {
    const missing = await weft(['call', url, 'describe', 'note=@/no/such/file']);
    assert.equal(missing.code, 2);
    assert.match(
      missing.stderr,
      /note=@\/no\/such\/file: cannot read it \(there is no such file\); write note=\\@/,
    );
    const twice = await weft(['call', url, 'describe', 'note=@-', '--args', '-'], '{}');
    assert.equal(twice.code, 2);
    assert.match(twice.stderr, /stdin can be read once/);
  });
});

describe("weft call with an argument over the server's limit", () => {
  it("prints the server's reason (the 413's message) in one line and exits 1", async () => {
    writeFileSync(join(folder, 'huge.txt'), 'h'.repeat(5 * 1024 * 1024));
    const { code, stderr } = await weft(['call', url, 'describe', `note=@${join(folder, 'huge.txt')}`]);
    assert.equal(code, 1);
    assert.match(
      stderr,
      /^weft: .*exceeds the 4194304-byte limit: raise the server's maxMessageBytes option/,
    );
    assert.equal(stderr.split('\n').length, 2, stderr);
  });
});

describe("weft's own output", () => {
  it('weft call --help explains the argument forms and exits 0', async () => {
    const { code, stdout } = await weft(['call', '--help']);
    assert.equal(code, 0);
    assert.match(stdout, /^usage: weft call <target> <tool>/);
    assert.match(stdout, /key=@path {9}the value read from a file \(key=@- reads stdin\)/);
    assert.ok(stdout.endsWith('\n'));
  });

  it('ends --help, a tool error and a usage error with a newline', async () => {
    const help = await weft(['--help']);
    assert.equal(help.code, 0);
    assert.ok(help.stdout.endsWith('--version\n'), JSON.stringify(help.stdout.slice(-20)));
    const failed = await weft(['call', url, 'fails']);
    assert.deepEqual([failed.code, failed.stderr], [1, 'nope\n']);
    const mistyped = await weft(['call']);
    assert.equal(mistyped.code, 2);
    assert.ok(mistyped.stderr.endsWith('\n'));
  });
});
