/**
 * What `server.mount` accepts, and the check that refuses a wrong option when the mount is made
 * (not at the first connection or the first call), with a message naming what is allowed.
 */
import type { PromptRegistry } from '../prompts/prompt-registry.js';
import type { ResourceRegistry } from '../resources/resource-registry.js';
import { checkMountTransforms, type MountTransforms } from './mounted-transform.js';

/** Where a mount publishes an upstream's prompts and resources, and tells of resource updates. */
export interface MountPrimitives {
  prompts: PromptRegistry;
  resources: ResourceRegistry;
  resourceUpdated: (uri: string) => void;
}

export interface MountOptions {
  /**
   * Prefix of the published names: `namespace_tool`, `namespace_prompt`, and resource URIs and
   * templates as `namespace+scheme:...` (resource-uris.ts). Absent: the upstream's names as they are.
   */
  namespace?: string;
  /**
   * How errors that reach clients name this mount (default: the namespace). Clients never see the
   * upstream's URL or command; the log does, secrets masked (mount-naming.ts).
   */
  label?: string;
  /** Which era to speak to the upstream (default: probe). */
  protocol?: 'auto' | 'modern' | 'legacy';
  /** Longest wait between reconnection attempts (ms, default 5000). */
  maxBackoffMs?: number;
  /**
   * At most this many distinct upstream resource URIs watched for this mount's subscribers at once
   * (default 1000); one more subscription is refused with an error saying so.
   */
  maxWatchedUris?: number;
  /**
   * Per upstream tool name: its published face changed, as `transformTool` changes a local tool's
   * (name, title, description, tags, args renamed / described / defaulted / hidden, a custom
   * handler with `forward`). See mounted-transform.ts.
   */
  transform?: MountTransforms;
}

const MOUNT_OPTION_KEYS = new Set([
  'namespace',
  'label',
  'protocol',
  'maxBackoffMs',
  'maxWatchedUris',
  'transform',
]);
const NAMESPACE = /^[A-Za-z0-9_.-]{1,64}$/;

/** Throws a TypeError for an unknown option, a malformed namespace or a wrong transform. */
export function checkMountOptions(options: MountOptions): void {
  for (const key of Object.keys(options)) {
    if (!MOUNT_OPTION_KEYS.has(key)) {
      throw new TypeError(
        `server.mount: unknown option "${key}"; known: ${[...MOUNT_OPTION_KEYS].join(', ')}`,
      );
    }
  }
  if (options.namespace !== undefined && !NAMESPACE.test(options.namespace)) {
    throw new TypeError(
      `server.mount: namespace ${JSON.stringify(options.namespace)} must be 1 to 64 characters of A-Z, a-z, 0-9, "_", "-" or "."`,
    );
  }
  for (const key of ['maxBackoffMs', 'maxWatchedUris'] as const) {
    const value = options[key];
    if (value !== undefined && (!Number.isInteger(value) || value < 1)) {
      throw new TypeError(`server.mount: ${key} must be a positive integer, got ${JSON.stringify(value)}`);
    }
  }
  if (options.label !== undefined && (typeof options.label !== 'string' || options.label.length > 128)) {
    throw new TypeError('server.mount: label must be a string of at most 128 characters');
  }
  checkMountTransforms(options.transform);
}
