/**
 * The `health` option of an HTTP listener: where the liveness and readiness probes are answered
 * (`/healthz`, `/readyz` by default, on the MCP listener), whether they are there at all, and an
 * extra port of their own for orchestrators that probe elsewhere. Checked when the server listens,
 * with a message that says what to fix.
 */

export interface HealthOptions {
  /** Liveness path (default `/healthz`): 200 while the event loop answers. */
  livePath?: string;
  /** Readiness path (default `/readyz`): 200 when ready for new work, else 503 with the reason. */
  readyPath?: string;
  /**
   * Also answer both probes on this port (the MCP listener keeps answering them too). It opens
   * before the server is ready, so a probe there sees `starting` until `listen` completes.
   */
  port?: number;
  /** Interface of `port` (default: the MCP listener's, else 127.0.0.1). */
  host?: string;
}

/** The paths both probes are served at, once options are resolved. */
export interface HealthPaths {
  livePath: string;
  readyPath: string;
}

const HEALTH_OPTION_KEYS = new Set(['livePath', 'readyPath', 'port', 'host']);

/** The probes' paths, or undefined when `health: false` turned them off. Throws on a mistake. */
export function healthPathsOf(
  health: false | HealthOptions | undefined,
  mcpPath: string,
): HealthPaths | undefined {
  if (health === false) return undefined;
  if (health !== undefined && (typeof health !== 'object' || health === null)) {
    throw new TypeError(
      'listen({ http: { health } }): health must be false or an object such as { readyPath: "/ready" }',
    );
  }
  for (const key of Object.keys(health ?? {})) {
    if (!HEALTH_OPTION_KEYS.has(key)) {
      throw new TypeError(
        `listen({ http: { health } }): unknown option "${key}". Known: ${[...HEALTH_OPTION_KEYS].join(', ')}`,
      );
    }
  }
  const livePath = health?.livePath ?? '/healthz';
  const readyPath = health?.readyPath ?? '/readyz';
  for (const [what, path] of [
    ['livePath', livePath],
    ['readyPath', readyPath],
  ] as const) {
    if (typeof path !== 'string' || !path.startsWith('/')) {
      throw new TypeError(
        `listen({ http: { health } }): ${what} must be a path starting with "/", got ${JSON.stringify(path)}`,
      );
    }
    if (path === mcpPath) {
      throw new TypeError(
        `listen({ http: { health } }): ${what} ${path} is the MCP endpoint's path; choose another`,
      );
    }
  }
  if (livePath === readyPath) {
    throw new TypeError(
      `listen({ http: { health } }): livePath and readyPath are both ${livePath}; give them different paths`,
    );
  }
  const port = health?.port;
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port < 65536)) {
    throw new TypeError(
      `listen({ http: { health } }): port must be a TCP port number (0 for any free one), got ${port}`,
    );
  }
  return { livePath, readyPath };
}
