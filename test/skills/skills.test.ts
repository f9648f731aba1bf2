/**
 * The Skills extension (SEP-2640): `server.skills(directory)` serves a folder of skills. Digests
 * are checked here against our own hashing of the files on disk, and by the official v2 client's
 * SkillsClient (which re-parses each SKILL.md's frontmatter and compares it with the entry) in
 * both eras over Streamable HTTP. Broken skills are refused at registration.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { McpServer } from '../../lib/index.js';
import { envelope } from '../router/modern-fixtures.js';
import { InProcessClient } from '../support/in-process-client.js';

const roots: string[] = [];
after(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** A skills folder made of `files` (paths relative to it). */
function folder(files: Record<string, string | Uint8Array>): string {
  const root = mkdtempSync(join(tmpdir(), 'weft-skills-'));
  roots.push(root);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

const PDF_SKILL = `---
name: pdf-forms
description: >
  Fill in PDF forms. Use when the user
  hands you a PDF with fields.
license: MIT
metadata:
  author: weft
  version: "1.0"
allowed-tools: [Read, Write]
---
# PDF forms

See [the guide](references/GUIDE.md).
`;

const FILES = {
  'pdf-forms/SKILL.md': PDF_SKILL,
  'pdf-forms/references/GUIDE.md': '# Guide\n\nStep one.\n',
  'pdf-forms/scripts/fill.py': 'print("fill")\n',
  'pdf-forms/assets/logo.png': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0xff, 0x00, 0xfe]),
  'team/code-review/SKILL.md':
    "---\nname: code-review\ndescription: 'Review a diff: style, bugs, tests.'\n---\nReview.\n",
};

const digestOf = (bytes: Uint8Array) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

describe('server.skills', () => {
  let root: string;
  let server: McpServer;
  let url: URL;
  before(async () => {
    root = folder(FILES);
    server = new McpServer({ name: 'skills', version: '1', pool: { maxThreads: 1 }, pageSize: 1 }).skills(
      root,
    );
    await server.listen({ http: { port: 0, host: '127.0.0.1' }, handleSignals: false });
    url = new URL(`http://127.0.0.1:${server.addresses.http!.port}/mcp`);
  });
  after(() => server.close());

  it('lists every skill with its frontmatter verbatim and a manifest whose digests match the files', async () => {
    const client = new InProcessClient(server);
    await client.initialize();
    const skills: {
      uri: string;
      frontmatter: Record<string, unknown>;
      resources: { uri: string; digest: string; size: number }[];
    }[] = [];
    let cursor: unknown;
    do {
      const page = await client.request('skills/list', cursor === undefined ? {} : { cursor });
      skills.push(...((page.result?.skills ?? []) as typeof skills));
      cursor = page.result?.nextCursor;
    } while (cursor !== undefined);
    assert.deepEqual(
      skills.map((skill) => skill.uri),
      ['skill://pdf-forms/SKILL.md', 'skill://team/code-review/SKILL.md'],
    );
    assert.deepEqual(skills[0]!.frontmatter, {
      name: 'pdf-forms',
      description: 'Fill in PDF forms. Use when the user hands you a PDF with fields.\n',
      license: 'MIT',
      metadata: { author: 'weft', version: '1.0' },
      'allowed-tools': ['Read', 'Write'],
    });
    assert.equal(skills[1]!.frontmatter.description, 'Review a diff: style, bugs, tests.');
    const pdf = skills[0]!;
    assert.deepEqual(
      pdf.resources.map((entry) => entry.uri),
      [
        'skill://pdf-forms/SKILL.md',
        'skill://pdf-forms/assets/logo.png',
        'skill://pdf-forms/references/GUIDE.md',
        'skill://pdf-forms/scripts/fill.py',
      ],
    );
    for (const entry of pdf.resources) {
      const onDisk = readFileSync(join(root, entry.uri.slice('skill://'.length)));
      assert.equal(entry.digest, digestOf(onDisk), entry.uri);
      assert.equal(entry.size, onDisk.byteLength, entry.uri);
      // And what resources/read returns is those same bytes.
      const read = await client.request('resources/read', { uri: entry.uri });
      const contents = (read.result?.contents as { text?: string; blob?: string }[] | undefined)?.[0] ?? {};
      const bytes =
        contents.text !== undefined ? Buffer.from(contents.text) : Buffer.from(contents.blob!, 'base64');
      assert.equal(digestOf(bytes), entry.digest, `read of ${entry.uri}`);
    }
    const got = await client.request('skills/get', { uri: 'skill://team/code-review/SKILL.md' });
    assert.deepEqual(got.result?.skill, skills[1]);
    const missing = await client.request('skills/get', { uri: 'skill://nope/SKILL.md' });
    assert.equal(missing.error?.code, -32602);
  });

  it('advertises the extension with directoryRead and lists directories, in both eras', async () => {
    const client = new InProcessClient(server);
    const init = await client.initialize();
    assert.deepEqual((init.result?.capabilities as { extensions?: unknown } | undefined)?.extensions, {
      'io.modelcontextprotocol/skills': { directoryRead: true },
    });
    const discover = await client.request('server/discover', { _meta: envelope() });
    assert.deepEqual((discover.result?.capabilities as { extensions?: unknown } | undefined)?.extensions, {
      'io.modelcontextprotocol/skills': { directoryRead: true },
    });
    const listing: unknown[] = [];
    let cursor: unknown;
    do {
      const page = await client.request('resources/directory/read', {
        uri: 'skill://pdf-forms',
        ...(cursor === undefined ? {} : { cursor }),
      });
      listing.push(...((page.result?.resources ?? []) as unknown[]));
      cursor = page.result?.nextCursor;
    } while (cursor !== undefined);
    assert.deepEqual(listing, [
      {
        uri: 'skill://pdf-forms/SKILL.md',
        name: 'SKILL.md',
        mimeType: 'text/markdown',
        size: Buffer.byteLength(PDF_SKILL),
      },
      { uri: 'skill://pdf-forms/assets', name: 'assets', mimeType: 'inode/directory' },
      { uri: 'skill://pdf-forms/references', name: 'references', mimeType: 'inode/directory' },
      { uri: 'skill://pdf-forms/scripts', name: 'scripts', mimeType: 'inode/directory' },
    ]);
    const modern = await client.request('skills/list', { _meta: envelope() });
    assert.equal(modern.result?.resultType, 'complete');
    assert.equal(modern.result?.ttlMs, 0);
    assert.equal(modern.result?.cacheScope, 'private');
    const notDir = await client.request('resources/directory/read', { uri: 'skill://pdf-forms/SKILL.md' });
    assert.equal(notDir.error?.code, -32602);
  });

  for (const era of ['2026-07-28', 'legacy'] as const) {
    it(`verifies with the official v2 SkillsClient (${era})`, async () => {
      const client = new Client(
        { name: 'skills-test', version: '1' },
        era === 'legacy' ? {} : { versionNegotiation: { mode: { pin: era } } },
      );
      await client.connect(new StreamableHTTPClientTransport(url));
      try {
        const skills = new SkillsClient(client);
        assert.equal(skills.supported, true);
        assert.equal(skills.directoryRead, true);
        const listing = await skills.list();
        assert.equal(listing.skills.length, 2);
        for (const skill of listing.skills) {
          if (skill.resources === 'dynamic') assert.fail('weft publishes complete manifests');
          for (const entry of skill.resources) {
            const file = await skills.read(skill, entry.uri);
            assert.equal(file.verified, true, entry.uri);
          }
        }
        const dir = await skills.readDirectory('skill://team/code-review');
        assert.deepEqual(
          dir.resources.map((child) => child.uri),
          ['skill://team/code-review/SKILL.md'],
        );
      } finally {
        await client.close();
      }
    });
  }

  it('refuses a read of a file changed on disk since start', async () => {
    const changing = folder({ 'notes/SKILL.md': '---\nname: notes\ndescription: Notes.\n---\nv1\n' });
    const local = new McpServer({ name: 's', version: '1', pool: { maxThreads: 1 } }).skills(changing);
    try {
      const client = new InProcessClient(local);
      await client.initialize();
      writeFileSync(join(changing, 'notes/SKILL.md'), '---\nname: notes\ndescription: Notes.\n---\nv2\n');
      const read = await client.request('resources/read', { uri: 'skill://notes/SKILL.md' });
      assert.equal(read.error?.code, -32603);
      assert.match(read.error?.message ?? '', /changed on disk since the server started/);
    } finally {
      await local.close();
    }
  });
});

describe('server.skills refuses at registration', () => {
  const build = (files: Record<string, string>) => () =>
    new McpServer({ name: 's', version: '1', pool: { maxThreads: 1 } }).skills(folder(files));

  it('a skill without a name or a description', () => {
    assert.throws(build({ 'a/SKILL.md': '---\ndescription: x\n---\n' }), /needs a "name"/);
    assert.throws(build({ 'a/SKILL.md': '---\nname: a\n---\n' }), /needs a "description"/);
  });

  it('a skill whose name differs from its directory', () => {
    assert.throws(
      build({ 'pdf/SKILL.md': '---\nname: pdf-forms\ndescription: x\n---\n' }),
      /name "pdf-forms" differs from its directory "pdf"/,
    );
  });

  it('a name that breaks the Agent Skills rule, frontmatter that does not parse, a folder without skills', () => {
    assert.throws(build({ 'Big/SKILL.md': '---\nname: Big\ndescription: x\n---\n' }), /lowercase/);
    assert.throws(build({ 'a/SKILL.md': 'no frontmatter\n' }), /must start with a "---" line/);
    assert.throws(build({ 'a/SKILL.md': '---\nname: a\ndescription: x: y\n---\n' }), /quote a value/);
    assert.throws(build({ 'a/README.md': 'hi' }), /no skill under/);
  });

  it('a symlink inside a skill', () => {
    const root = folder({ 'a/SKILL.md': '---\nname: a\ndescription: x\n---\n' });
    symlinkSync('/etc/hostname', join(root, 'a/link'));
    assert.throws(
      () => new McpServer({ name: 's', version: '1', pool: { maxThreads: 1 } }).skills(root),
      /link is a symlink/,
    );
  });
});
