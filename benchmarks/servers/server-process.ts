/**
 * Starts a server under test as a child process, connects a load client to it, and stops it for
 * good afterwards. Every child is tracked so that none outlives the benchmark, even when the
 * runner is interrupted. A server that exits before it is ready does not support the transport it
 * was asked for (or is broken): that is a TransportUnavailable, which scenarios turn into a note.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { freePort } from '../../test/support/free-port.js';
import { HttpWire } from '../load/http-wire.js';
import { LoadClient } from '../load/load-client.js';
import { ModernHttpWire } from '../load/modern-http-wire.js';
import { StdioWire } from '../load/stdio-wire.js';
import type { TransportName, Wire } from '../load/wire.js';
import { WsWire } from '../load/ws-wire.js';
import { UNSUPPORTED_TRANSPORT_EXIT } from '../peers/peer-options.js';
import type { ServerSpec } from './server-catalog.js';

const READY_TIMEOUT_MS = 20_000;
const children = new Set<ChildProcessWithoutNullStreams>();

export class TransportUnavailable extends Error {
  override readonly name = 'TransportUnavailable';
}

export interface RunningServer {
  spec: ServerSpec;
  transport: TransportName;
  pid: number;
  /** The network port it serves (0 over stdio): for scenarios that open more clients. */
  port: number;
  client: LoadClient;
  /** Stops the server (SIGTERM, then SIGKILL after 500 ms) and waits until it has exited. */
  stop(): Promise<void>;
}

export interface StartOptions {
  threads?: number;
  /** weft only: the pool threads' nice increment. */
  nice?: number;
  /** HTTP only: headers sent with every request (an `authorization` bearer token). */
  headers?: Record<string, string>;
}

/**
 * Node flags every server process starts with (`--node-flags`), so a runtime setting can be compared
 * on all servers at once: never on one server only.
 */
let nodeFlags: string[] = [];

export function setServerNodeFlags(flags: string[]): void {
  nodeFlags = flags;
}

/** The flags set by `setServerNodeFlags`, for processes started outside `startServer`. */
export function serverNodeFlags(): readonly string[] {
  return nodeFlags;
}

export async function startServer(
  spec: ServerSpec,
  transport: TransportName,
  options: StartOptions = {},
): Promise<RunningServer> {
  const port = transport === 'stdio' ? 0 : await freePort();
  const { script, args } = spec.command(transport, port);
  if (options.threads !== undefined) args.push('--threads', String(options.threads));
  if (options.nice !== undefined) args.push('--nice', String(options.nice));
  const child = spawn(process.execPath, [...nodeFlags, script, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  children.add(child);
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => {
      children.delete(child);
      resolve(
        code === UNSUPPORTED_TRANSPORT_EXIT
          ? `${spec.label} has no ${transport} server transport`
          : `${spec.label} exited before it was ready (code ${code}, signal ${signal}): ${firstLine(stderr)}`,
      );
    });
  });
  const stop = () => stopChild(child);
  try {
    const ready = (async () => {
      const wire = await openWire(transport, child, port, options.headers);
      const client = new LoadClient(wire);
      // The stateless era has no handshake: every request carries its own envelope.
      if (transport !== 'modern-http') await client.initialize();
      return client;
    })();
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(
        () => reject(new Error(`${spec.label} not ready in ${READY_TIMEOUT_MS} ms`)),
        READY_TIMEOUT_MS,
      ).unref(),
    );
    const client = await Promise.race([
      ready,
      exited.then((why) => Promise.reject(new TransportUnavailable(why))),
      timeout,
    ]);
    return { spec, transport, pid: child.pid!, port, client, stop };
  } catch (error) {
    await stop();
    if (error instanceof TransportUnavailable) throw error;
    throw new TransportUnavailable(
      `${spec.label} over ${transport}: ${(error as Error).message}${stderr ? ` (${firstLine(stderr)})` : ''}`,
    );
  }
}

/** Kills every server still running; for the end of a run and for interrupts. */
export async function stopAllServers(): Promise<void> {
  await Promise.all([...children].map((child) => stopChild(child)));
}

process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

async function stopChild(child: ChildProcessWithoutNullStreams): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 500);
  await gone;
  clearTimeout(timer);
  children.delete(child);
}

function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .find((line) => line.trim() !== '')
      ?.trim() ?? 'no message'
  );
}

async function waitForPort(port: number, child: ChildProcessWithoutNullStreams): Promise<void> {
  while (child.exitCode === null && child.signalCode === null) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the server exited'); // startServer's race reports the exit with its stderr
}

async function openWire(
  transport: TransportName,
  child: ChildProcessWithoutNullStreams,
  port: number,
  headers: Record<string, string> = {},
): Promise<Wire> {
  if (transport === 'stdio') return new StdioWire(child);
  await waitForPort(port, child);
  if (transport === 'http') return new HttpWire(port, headers);
  if (transport === 'modern-http') return new ModernHttpWire(port, headers);
  // Where the WebSocket endpoint lives is the server's choice: /mcp first, like HTTP, then the root.
  return WsWire.open(`ws://127.0.0.1:${port}/mcp`).catch(() => WsWire.open(`ws://127.0.0.1:${port}/`));
}
