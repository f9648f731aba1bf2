/**
 * A tool after registration: its published descriptor, its compiled validators and the run-time
 * settings the engine needs. Built once, read on every call, never mutated.
 */
import type { HeaderParam } from '../protocol/mcp-param-headers.js';
import type { ExactCall } from './exact-tool.js';
import type { LimitsOption } from './per-caller-limits.js';
import type { Checked, ValueCheck } from './standard-schema-check.js';
import type {
  BeforeTask,
  Placement,
  TaskSupport,
  ToolDefinition,
  ToolEnv,
  ToolHandler,
  ToolIsolation,
  WorkerResourceLimits,
} from './tool-definition.js';

/** The `Tool` object of `tools/list`, exactly as published. */
export interface ToolDescriptor {
  name: string;
  title?: string;
  description?: string;
  inputSchema: object;
  outputSchema?: object;
  annotations?: object;
  icons?: object[];
  _meta?: Record<string, unknown>;
  /** The legacy era's task negotiation, from the tool's `task` option. */
  execution?: { taskSupport: TaskSupport };
}

interface RegisteredToolBase {
  readonly name: string;
  readonly definition: ToolDefinition<never, never>;
  readonly descriptor: ToolDescriptor;
  /** The definition's `tags` (local to the server, never published). */
  readonly tags: readonly string[] | undefined;
  /** The OAuth scopes a caller needs, all of them (empty: none); never published. */
  readonly scopes: readonly string[];
  /**
   * Checks a call's arguments: with a JSON Schema they pass as sent; with a Standard Schema the
   * handler gets the schema's output (defaults, transforms applied). Asynchronous only when the
   * schema is (async refinements).
   */
  readonly checkArguments: ValueCheck;
  /** The arguments its `x-mcp-header` annotations mirror into `Mcp-Param-*` headers (checked at registration). */
  readonly headerParams: readonly HeaderParam[];
  /** Checks structured output; with a Standard Schema it yields the schema's output, which is sent. */
  readonly checkOutput: ((value: unknown) => Checked) | undefined;
  /** The tool's own deadline in ms (0 = none of its own). */
  readonly timeoutMs: number;
  /** Max calls of this tool in flight (Infinity = no limit of its own). */
  readonly concurrency: number;
  /** What one caller may hold and spend of this tool (undefined: only the server's limits). */
  readonly limits: LimitsOption | undefined;
  /** Whether calls may (or must) run as tasks; undefined = never. */
  readonly task: TaskSupport | undefined;
  readonly beforeTask: BeforeTask | undefined;
  readonly structuredFailure:
    | { timeout?: Record<string, unknown>; error?: Record<string, unknown> }
    | undefined;
}

export interface RegisteredInlineTool extends RegisteredToolBase {
  readonly blocking: false;
  readonly handler: ToolHandler<never, never>;
  /** Set only by the sealed registration (exact-tool.ts): calls go to it, past every local check. */
  readonly exact?: ExactCall;
  /**
   * A transformed tool's custom handler over a blocking original: the original, compiled, which
   * the handler's `forward` runs in the pool (engine/forwarded-call.ts). Never listed by itself.
   */
  readonly forwardTo?: RegisteredBlockingTool;
}

export interface RegisteredBlockingTool extends RegisteredToolBase {
  readonly blocking: true;
  /** A file: URL the worker can `import()`. */
  readonly moduleUrl: string;
  readonly exportName: string;
  /** The tool name the module's export answers to: its own, or a transformed tool's original's. */
  readonly handlerName: string;
  readonly resourceLimits: WorkerResourceLimits | undefined;
  /** 'thread' (a pool thread) or 'process' (a pool child process, killed outright when abandoned). */
  readonly isolation: ToolIsolation;
  /**
   * The author gave `isolation` (true), or it is the default (false/absent): a default 'thread' is
   * moved to a process when the module loads native code (engine/native-verdicts.ts).
   */
  readonly isolationPinned?: boolean;
  /** undefined = the non-secret baseline only; true = the server's environment; a record = baseline + it. */
  readonly env: ToolEnv | undefined;
  /** Where it runs; undefined = as the server's fleet option says (its `placement`, else local). */
  readonly placement: Placement | undefined;
  /** How many more times a fleet call is run after its worker died (0 unless opted in). */
  readonly fleetRetries: number;
}

export type RegisteredTool = RegisteredInlineTool | RegisteredBlockingTool;
