/**
 * A folder of Agent Skills, read once when it is registered (`server.skills(directory)`), as the
 * Skills extension (SEP-2640) publishes it: every skill's entry (`skill://<path>/SKILL.md`, its
 * frontmatter verbatim, and the complete manifest of its files with `sha256:` digests and sizes),
 * every file as a resource, and every directory of a skill as a listing.
 *
 * A skill is a directory holding a `SKILL.md`; skills may be grouped in plain folders
 * (`skill://team/review/SKILL.md`). Everything a host will check is checked here, so a broken
 * skill stops the server at start, not a client later: the frontmatter must parse and carry a
 * `name` (1-64 lowercase letters, digits, single hyphens) equal to the skill's directory and a
 * `description` (1-1024 characters); a skill stays within the extension's limits (512 files,
 * 16 MiB); symlinks and other special files are refused (a digest of what a link points to today
 * says nothing about tomorrow).
 *
 * Files are read again on each `resources/read` and checked against the digest published at
 * start: a file changed on disk since is an error, never a silent mismatch with the manifest.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname, join, relative, sep } from 'node:path';
import { ErrorCode } from '../protocol/error-codes.js';
import { ProtocolError } from '../protocol/protocol-error.js';
import { FrontmatterError, readFrontmatter } from './frontmatter.js';

export const SKILL_FILE = 'SKILL.md';
export const DIRECTORY_MIME_TYPE = 'inode/directory';
/** Per skill, what hosts must accept and servers should not exceed (SEP-2640). */
export const SKILL_LIMITS = { files: 512, bytes: 16 * 1024 * 1024 } as const;

const NAME_PATTERN = /^[0-9a-z]+(?:-[0-9a-z]+)*$/;

export interface SkillManifestEntry {
  uri: string;
  digest: string;
  size: number;
}

export interface SkillEntry {
  uri: string;
  frontmatter: Record<string, unknown>;
  resources: SkillManifestEntry[];
}

export interface SkillFile {
  uri: string;
  path: string;
  /** Where in its skill: `SKILL.md`, `references/GUIDE.md`. */
  relativePath: string;
  mimeType: string;
  digest: string;
  size: number;
  skill: SkillEntry;
}

export interface DirectoryChild {
  uri: string;
  name: string;
  mimeType: string;
  size?: number;
}

export class SkillRegistrationError extends Error {}

export class SkillCatalog {
  /** Ordered by URI (code-unit order), as skills/list pages them. */
  readonly skills: SkillEntry[] = [];
  readonly files = new Map<string, SkillFile>();
  /** Each directory of a skill (its root too) -> its children, ordered by URI. */
  readonly directories = new Map<string, DirectoryChild[]>();

  constructor(readonly root: string) {
    let found = 0;
    const walk = (dir: string, segments: string[]) => {
      const entries = readEntries(dir);
      if (entries.some((entry) => entry.name === SKILL_FILE && entry.isFile())) {
        this.#addSkill(dir, segments);
        found++;
        return;
      }
      for (const entry of entries) {
        if (entry.isDirectory()) walk(join(dir, entry.name), [...segments, entry.name]);
      }
    };
    walk(root, []);
    if (found === 0) {
      throw new SkillRegistrationError(
        `server.skills: no skill under ${root}: each skill is a directory with a ${SKILL_FILE} (e.g. ${join(root, 'my-skill', SKILL_FILE)})`,
      );
    }
    this.skills.sort((a, b) => compare(a.uri, b.uri));
  }

  /** A file read now, checked against the digest published at start. */
  async read(uri: string): Promise<{ file: SkillFile; bytes: Buffer }> {
    const file = this.files.get(uri);
    if (file === undefined) throw new Error(`no skill file at ${uri}`);
    const bytes = await readFile(file.path);
    if (bytes.byteLength !== file.size || sha256(bytes) !== file.digest) {
      throw new ProtocolError(
        ErrorCode.InternalError,
        `${uri} changed on disk since the server started; restart the server to publish the new version`,
      );
    }
    return { file, bytes };
  }

  #addSkill(dir: string, segments: string[]): void {
    const where = relative(process.cwd(), join(dir, SKILL_FILE)) || join(dir, SKILL_FILE);
    const refuse = (why: string): never => {
      throw new SkillRegistrationError(`server.skills: ${where}: ${why}`);
    };
    if (segments.length === 0)
      refuse(`the skills directory itself holds a ${SKILL_FILE}; put each skill in its own directory`);
    const base = `skill://${segments.map(encodeURIComponent).join('/')}`;
    const paths: string[] = [];
    const subdirectories: string[] = [];
    const collect = (current: string) => {
      for (const entry of readEntries(current)) {
        const full = join(current, entry.name);
        if (entry.isDirectory()) {
          subdirectories.push(full);
          collect(full);
        } else if (entry.isFile()) paths.push(full);
        else refuse(`${relative(dir, full)} is a symlink or special file; skills hold regular files only`);
      }
    };
    collect(dir);
    if (paths.length > SKILL_LIMITS.files)
      refuse(`${paths.length} files, more than the ${SKILL_LIMITS.files} a skill may hold`);
    const manifest = readFileSync(join(dir, SKILL_FILE));
    let frontmatter: Record<string, unknown>;
    try {
      frontmatter = readFrontmatter(new TextDecoder('utf-8', { fatal: true }).decode(manifest));
    } catch (error) {
      if (error instanceof TypeError) refuse('it is not valid UTF-8');
      if (error instanceof FrontmatterError) refuse(`frontmatter: ${error.message}`);
      throw error;
    }
    const { name, description } = frontmatter!;
    const directory = segments.at(-1)!;
    if (typeof name !== 'string' || name === '')
      refuse('the frontmatter needs a "name" (the directory\'s name)');
    if (typeof description !== 'string' || description === '') {
      refuse('the frontmatter needs a "description": what the skill does and when to use it');
    }
    if (name !== directory)
      refuse(`the frontmatter's name "${name}" differs from its directory "${directory}"; make them equal`);
    if (!(NAME_PATTERN.test(name as string) && (name as string).length <= 64)) {
      refuse(`the name "${name}" must be 1-64 lowercase letters, digits and single hyphens`);
    }
    if ([...(description as string)].length > 1024) refuse('the description is longer than 1024 characters');
    const skill: SkillEntry = { uri: `${base}/${SKILL_FILE}`, frontmatter: frontmatter!, resources: [] };
    let total = 0;
    for (const path of paths) {
      const bytes = readFileSync(path);
      total += bytes.byteLength;
      const relativePath = relative(dir, path).split(sep).join('/');
      const uri = `${base}/${relativePath.split('/').map(encodeURIComponent).join('/')}`;
      const file: SkillFile = {
        uri,
        path,
        relativePath,
        mimeType: mimeTypeOf(path),
        digest: sha256(bytes),
        size: bytes.byteLength,
        skill,
      };
      this.files.set(uri, file);
      skill.resources.push({ uri, digest: file.digest, size: file.size });
    }
    if (total > SKILL_LIMITS.bytes)
      refuse(`${total} bytes, more than the ${SKILL_LIMITS.bytes} a skill may hold`);
    skill.resources.sort((a, b) => compare(a.uri, b.uri));
    this.skills.push(skill);
    for (const current of [dir, ...subdirectories]) {
      const uriOf = (path: string) =>
        `${base}${relative(dir, path) === '' ? '' : '/'}${relative(dir, path).split(sep).map(encodeURIComponent).join('/')}`;
      const children: DirectoryChild[] = readEntries(current).map((entry) => {
        const full = join(current, entry.name);
        if (entry.isDirectory()) return { uri: uriOf(full), name: entry.name, mimeType: DIRECTORY_MIME_TYPE };
        const file = this.files.get(uriOf(full))!;
        return { uri: file.uri, name: entry.name, mimeType: file.mimeType, size: file.size };
      });
      children.sort((a, b) => compare(a.uri, b.uri));
      this.directories.set(uriOf(current), children);
    }
  }
}

function readEntries(dir: string) {
  return readdirSync(dir, { withFileTypes: true }).sort((a, b) => compare(a.name, b.name));
}

export function sha256(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const MIME_TYPES: Record<string, string> = {
  '.md': 'text/markdown',
  '.markdown': 'text/markdown',
  '.txt': 'text/plain',
  '.json': 'application/json',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
  '.py': 'text/x-python',
  '.sh': 'application/x-sh',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.ts': 'text/typescript',
  '.html': 'text/html',
  '.css': 'text/css',
  '.csv': 'text/csv',
  '.xml': 'application/xml',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.pdf': 'application/pdf',
};

function mimeTypeOf(path: string): string {
  return MIME_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
}
