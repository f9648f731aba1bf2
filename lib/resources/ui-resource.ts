/**
 * `server.uiResource(...)`: an MCP App's HTML as a resource. It is a plain resource underneath
 * (listed, read, subscribed like any other), with the app's mime type `text/html;profile=mcp-app`
 * and its `_meta.ui` (csp, permissions, domain, prefersBorder) on both the listing and the content
 * item, where hosts look for it. This module turns the definition into that resource and refuses
 * mistakes with what to write instead.
 */
import { UI_MIME_TYPE, UI_SCHEME } from '../protocol/apps-extension.js';
import type { ReadContext, ResourceDefinition } from './resource-definition.js';
import type { ResourceRegistry } from './resource-registry.js';

/** Which origins the app may reach; a host turns these into the iframe's Content-Security-Policy. */
export interface UiCsp {
  /** `connect-src`: fetch, XHR and WebSocket targets. */
  connectDomains?: string[];
  /** Scripts, styles, images, fonts, media. */
  resourceDomains?: string[];
  /** `frame-src`: nested iframes. */
  frameDomains?: string[];
  /** `base-uri`. */
  baseUriDomains?: string[];
}

/** Browser features the app asks for; a host may grant them with the iframe's `allow`. */
export interface UiPermissions {
  camera?: Record<string, never>;
  microphone?: Record<string, never>;
  geolocation?: Record<string, never>;
  clipboardWrite?: Record<string, never>;
}

export interface UiResourceDefinition {
  /** The app's `ui://` URI; tools name it in `ui.resourceUri`. */
  uri: `ui://${string}`;
  name: string;
  title?: string;
  description?: string;
  /** The app's HTML (self-contained: the host renders it in a sandboxed iframe), or a function that produces it. */
  html: string | ((ctx: ReadContext) => string | Promise<string>);
  csp?: UiCsp;
  permissions?: UiPermissions;
  /** A dedicated sandbox origin, in the form the host documents. */
  domain?: string;
  /** Whether the app wants the host to draw a border and background around it. */
  prefersBorder?: boolean;
  _meta?: Record<string, unknown>;
}

const UI_RESOURCE_KEYS = new Set([
  'uri',
  'name',
  'title',
  'description',
  'html',
  'csp',
  'permissions',
  'domain',
  'prefersBorder',
  '_meta',
]);
const CSP_KEYS = new Set(['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains']);
const PERMISSION_KEYS = new Set(['camera', 'microphone', 'geolocation', 'clipboardWrite']);

/** The resource that serves a UI definition, or a TypeError that says what to fix. */
export function uiResourceDefinition(definition: UiResourceDefinition): ResourceDefinition {
  const where = `UI resource ${JSON.stringify((definition as { uri?: unknown })?.uri)}`;
  const fail = (message: string): never => {
    throw new TypeError(`${where}: ${message}`);
  };
  if (typeof definition !== 'object' || definition === null) fail('expected an object');
  for (const key of Object.keys(definition)) {
    if (!UI_RESOURCE_KEYS.has(key))
      fail(`unknown option "${key}". Known: ${[...UI_RESOURCE_KEYS].join(', ')}`);
  }
  const { uri, html, csp, permissions, domain, prefersBorder } = definition;
  if (typeof uri !== 'string' || !URL.canParse(uri) || new URL(uri).protocol !== UI_SCHEME) {
    fail('uri must be a ui:// URI such as ui://my-server/chart.html');
  }
  if (typeof html !== 'string' && typeof html !== 'function') {
    fail('html must be the app as an HTML string, or a function that returns it');
  }
  const ui: Record<string, unknown> = {};
  if (csp !== undefined) {
    if (typeof csp !== 'object' || csp === null) fail('csp must be an object of origin lists');
    for (const [key, value] of Object.entries(csp)) {
      if (!CSP_KEYS.has(key)) fail(`csp: unknown key "${key}". Known: ${[...CSP_KEYS].join(', ')}`);
      if (!Array.isArray(value) || value.some((origin) => typeof origin !== 'string')) {
        fail(`csp.${key} must be a list of origins such as ['https://api.example.com']`);
      }
    }
    ui.csp = csp;
  }
  if (permissions !== undefined) {
    if (typeof permissions !== 'object' || permissions === null) fail('permissions must be an object');
    for (const key of Object.keys(permissions)) {
      if (!PERMISSION_KEYS.has(key)) {
        fail(`permissions: unknown key "${key}". Known: ${[...PERMISSION_KEYS].join(', ')}`);
      }
    }
    ui.permissions = permissions;
  }
  if (domain !== undefined) {
    if (typeof domain !== 'string' || domain === '') fail('domain must be a non-empty string');
    ui.domain = domain;
  }
  if (prefersBorder !== undefined) {
    if (typeof prefersBorder !== 'boolean') fail('prefersBorder must be true or false');
    ui.prefersBorder = prefersBorder;
  }
  if (definition._meta !== undefined && 'ui' in definition._meta) {
    fail('set csp, permissions, domain and prefersBorder as options, not in _meta.ui');
  }
  const meta = Object.keys(ui).length === 0 ? definition._meta : { ...definition._meta, ui };
  const resource: ResourceDefinition = {
    uri,
    name: definition.name,
    mimeType: UI_MIME_TYPE,
    read: async (_uri, ctx) => {
      const text = typeof html === 'string' ? html : await html(ctx);
      if (typeof text !== 'string') {
        throw new TypeError(
          `The html function of ${uri} returned ${typeof text}; it must return the HTML text`,
        );
      }
      return meta === undefined ? { text } : { text, _meta: meta };
    },
  };
  if (definition.title !== undefined) resource.title = definition.title;
  if (definition.description !== undefined) resource.description = definition.description;
  if (meta !== undefined) resource._meta = meta;
  return resource;
}

/** Whether the registry serves at least one app (the extension is advertised only then). */
export function hasUiResource(resources: ResourceRegistry): boolean {
  return resources.sortedResources().some(({ key }) => resources.mimeTypeOf(key) === UI_MIME_TYPE);
}

/**
 * Why a tool's `ui.resourceUri` cannot be served (it names no app registered here), or undefined.
 * The shape of `ui` is the tool registry's to check; this is the link between the two registries.
 */
export function uiTargetProblem(resources: ResourceRegistry, definition: unknown): string | undefined {
  const { name, ui } = (definition ?? {}) as { name?: unknown; ui?: { resourceUri?: unknown } };
  const uri = typeof ui === 'object' && ui !== null ? ui.resourceUri : undefined;
  if (typeof uri !== 'string' || !uri.startsWith('ui://')) return undefined;
  const mimeType = resources.mimeTypeOf(uri);
  if (mimeType === UI_MIME_TYPE) return undefined;
  const what =
    mimeType === undefined
      ? 'names no registered UI resource'
      : `names a resource whose mimeType is ${JSON.stringify(mimeType)}, not ${UI_MIME_TYPE}`;
  return `Tool ${JSON.stringify(name)}: ui.resourceUri ${uri} ${what}; register the app first with server.uiResource({ uri: '${uri}', name, html })`;
}
