/**
 * A tool's `ui` option (MCP Apps): the `ui://` resource a host renders for the tool's calls, and
 * who may call it. Checked when the tool registers, published in the tool's `_meta` as `ui` and as
 * the flat key older hosts read.
 *
 * Visibility is the host's to enforce (an app-only tool is still listed: the host hides it from
 * the model and lets the app call it); the server only says it.
 */
import { FLAT_UI_RESOURCE_KEY, UI_SCHEME } from '../protocol/apps-extension.js';

export type ToolVisibility = 'model' | 'app';

export interface ToolUi {
  /** The UI resource (`server.uiResource({ uri })`) a host renders for this tool's results. */
  resourceUri: `ui://${string}`;
  /**
   * Who may call the tool: `['model', 'app']` (default) or `['app']`, callable by its app only and
   * hidden from the model.
   */
  visibility?: readonly ToolVisibility[];
}

const UI_KEYS = new Set(['resourceUri', 'visibility']);
const VISIBILITIES = new Set<string>(['model', 'app']);

/** Refuses a malformed `ui` with what to write instead; returns the `_meta` it publishes. */
export function checkToolUi(
  ui: unknown,
  userMeta: Record<string, unknown> | undefined,
  fail: (message: string) => never,
): Record<string, unknown> | undefined {
  if (ui === undefined) return userMeta;
  const hint = "ui must be { resourceUri: 'ui://...', visibility?: ['model', 'app'] | ['app'] }";
  if (typeof ui !== 'object' || ui === null || Array.isArray(ui)) fail(hint);
  for (const key of Object.keys(ui as object)) {
    if (!UI_KEYS.has(key)) fail(`ui: unknown key "${key}". Known: ${[...UI_KEYS].join(', ')}`);
  }
  const { resourceUri, visibility } = ui as { resourceUri?: unknown; visibility?: unknown };
  if (
    typeof resourceUri !== 'string' ||
    !URL.canParse(resourceUri) ||
    new URL(resourceUri).protocol !== UI_SCHEME
  ) {
    fail(
      `ui.resourceUri must be a ui:// URI such as ui://my-server/chart.html, got ${JSON.stringify(resourceUri)}`,
    );
  }
  if (visibility !== undefined) {
    if (
      !Array.isArray(visibility) ||
      visibility.length === 0 ||
      visibility.some((who) => !VISIBILITIES.has(who)) ||
      new Set(visibility).size !== visibility.length
    ) {
      fail(
        `ui.visibility must be ['model', 'app'] or ['app'] (or ['model']), got ${JSON.stringify(visibility)}`,
      );
    }
  }
  if (userMeta !== undefined && ('ui' in userMeta || FLAT_UI_RESOURCE_KEY in userMeta)) {
    fail(`set the UI with the ui option only, not in _meta.ui or _meta["${FLAT_UI_RESOURCE_KEY}"]`);
  }
  const published: Record<string, unknown> = { resourceUri };
  if (visibility !== undefined) published.visibility = [...(visibility as string[])];
  return { ...userMeta, ui: published, [FLAT_UI_RESOURCE_KEY]: resourceUri };
}
