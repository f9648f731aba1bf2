/**
 * The MCP Apps extension's names on the wire: the extension id both eras advertise, the mime type
 * of an app's HTML, and the `_meta` keys a tool links its UI with (the nested one, and the flat
 * one older hosts read).
 */
export const UI_EXTENSION = 'io.modelcontextprotocol/ui';
export const UI_MIME_TYPE = 'text/html;profile=mcp-app';
export const UI_SCHEME = 'ui:';
/** The flat `_meta` key of hosts that predate `_meta.ui`. */
export const FLAT_UI_RESOURCE_KEY = 'ui/resourceUri';
