/**
 * What the server offers, computed when a client asks (at `initialize`, in `server/discover`), so
 * the answer follows what is registered at that moment rather than what was there at start.
 */
import type { PromptRegistry } from './prompts/prompt-registry.js';
import { UI_EXTENSION } from './protocol/apps-extension.js';
import type { ResourceRegistry } from './resources/resource-registry.js';
import { hasUiResource } from './resources/ui-resource.js';
import type { RegisteredTool } from './tools/registered-tool.js';
import type { ToolRegistry } from './tools/tool-registry.js';

/** A mounted (exact) tool whose upstream says it may run as a task: its tasks are forwarded. */
function mountedTaskTool(tool: RegisteredTool): boolean {
  if (tool.blocking !== false || !tool.exact) return false;
  const support = (tool.descriptor as { execution?: { taskSupport?: unknown } }).execution?.taskSupport;
  return support === 'optional' || support === 'required';
}

export function serverCapabilities(
  tools: ToolRegistry,
  resources: ResourceRegistry,
  prompts: PromptRegistry,
  /** Extensions the server was set up with (Skills), by id; MCP Apps is added when it applies. */
  extensions: Readonly<Record<string, object>> = {},
): Record<string, unknown> {
  const capabilities: Record<string, unknown> = { tools: { listChanged: true }, logging: {} };
  // Offered once some tool may run as a task. The legacy era's slot; server/discover shows it
  // as the tasks extension instead.
  if (tools.sorted().some((tool) => tool.task !== undefined || mountedTaskTool(tool))) {
    capabilities.tasks = { list: {}, cancel: {}, requests: { tools: { call: {} } } };
  }
  if (!resources.isEmpty) capabilities.resources = { subscribe: true, listChanged: true };
  if (!prompts.isEmpty) capabilities.prompts = { listChanged: true };
  if (!resources.isEmpty || !prompts.isEmpty) capabilities.completions = {};
  // MCP Apps, once there is an app to render; server/discover carries it to the modern era.
  const offered: Record<string, object> = { ...extensions };
  if (hasUiResource(resources)) offered[UI_EXTENSION] = {};
  if (Object.keys(offered).length > 0) capabilities.extensions = offered;
  return capabilities;
}
