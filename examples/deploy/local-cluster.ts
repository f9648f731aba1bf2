// local-cluster.ts: the whole recipe on one machine, without containers: a redis-server, three
// replicas (server.js), one `weft worker` (tools.js) and HAProxy with haproxy.cfg, on 127.0.0.1.
// `node local-cluster.js [--lb-port 8080] [--replica-ports 3000,3001,3002] [--redis-port 6390]`
// runs it until Ctrl-C (the same from WEFT_LB_PORT, WEFT_REPLICA_PORTS, WEFT_REDIS_PORT; a port not
// given is a free one). test/deploy/ and the rolling-restart benchmark import it to roll replicas
// under load. Every process it starts, it stops.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
/** haproxy.cfg sits beside the sources; the compiled file runs from dist/examples/deploy/. */
export const HAPROXY_CFG = [here('./haproxy.cfg'), here('../../../examples/deploy/haproxy.cfg')].find(
  existsSync,
)!;
const SERVER = here('./server.js');
const TOOLS = here('./tools.js');
const CLI = here('../../lib/cli.js');
const READY_WITHIN_MS = 20_000;

/** The haproxy binary (Debian puts it in /usr/sbin, often not on a user's PATH), or undefined. */
export function haproxyBinary(): string | undefined {
  for (const candidate of ['haproxy', '/usr/sbin/haproxy', '/usr/local/sbin/haproxy']) {
    if (spawnSync(candidate, ['-v'], { encoding: 'utf8' }).status === 0) return candidate;
  }
  return undefined;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

export interface ClusterProcess {
  readonly name: string;
  readonly child: ChildProcess;
  /** Everything it wrote so far, for failure messages. */
  output(): string;
  alive(): boolean;
  /** Resolves with the exit code (or the signal) once it has exited. */
  readonly exited: Promise<number | NodeJS.Signals>;
}

/** Starts a process, keeping what it writes. */
function spawnTracked(
  name: string,
  command: string,
  args: string[],
  env: Record<string, string>,
): ClusterProcess {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => {
    output += chunk;
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return {
    name,
    child,
    output: () => output,
    alive: () => child.exitCode === null && child.signalCode === null,
    exited: new Promise((resolve) =>
      child.once('exit', (code, signal) => resolve(code ?? signal ?? 'SIGKILL')),
    ),
  };
}

/** Starts a process and resolves once its output matches `ready`. */
function start(name: string, command: string, args: string[], env: Record<string, string>, ready: RegExp) {
  const started = spawnTracked(name, command, args, env);
  return new Promise<ClusterProcess>((resolve, reject) => {
    const timer = setTimeout(() => {
      started.child.kill('SIGKILL');
      reject(new Error(`${name} was not ready within ${READY_WITHIN_MS} ms:\n${started.output()}`));
    }, READY_WITHIN_MS);
    const onData = () => {
      if (!ready.test(started.output())) return;
      clearTimeout(timer);
      resolve(started);
    };
    started.child.stdout!.on('data', onData);
    started.child.stderr!.on('data', onData);
    void started.exited.then((how) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${how}) before it was ready:\n${started.output()}`));
    });
  });
}

export interface LocalClusterOptions {
  replicas?: number;
  /** How often HAProxy probes /readyz (WEFT_CHECK_INTER_MS); drainDelayMs must exceed twice it. */
  checkInterMs?: number;
  /** Extra environment for the replicas (WEFT_DRAIN_DELAY_MS, WEFT_DRAIN_TIMEOUT_MS...). */
  replicaEnv?: Record<string, string>;
  /** HAProxy's port (default: a free one). */
  lbPort?: number;
  /** One port per replica (default: free ones); its length is the number of replicas. */
  replicaPorts?: number[];
  /** Redis' port (default: a free one). */
  redisPort?: number;
}

export class LocalCluster {
  readonly replicas: (ClusterProcess | undefined)[] = [];
  readonly ports: number[] = [];
  readonly queue = `weft-deploy-${randomBytes(3).toString('hex')}`;
  readonly stateKey = randomBytes(32).toString('base64');
  redisUrl = '';
  lbUrl = '';
  balancer: ClusterProcess | undefined;
  checkInterMs = 200;
  #replicaEnv: Record<string, string> = {};
  readonly #all: ClusterProcess[] = [];

  /** Starts Redis, the replicas, a worker and HAProxy; stops what it started if one fails. */
  static async start(options: LocalClusterOptions = {}): Promise<LocalCluster> {
    const cluster = new LocalCluster();
    try {
      await cluster.#start(options);
    } catch (error) {
      await cluster.stop();
      throw error;
    }
    return cluster;
  }

  async #start(options: LocalClusterOptions): Promise<void> {
    const haproxy = haproxyBinary();
    if (!haproxy) throw new Error('haproxy is not installed (Debian: apt-get install haproxy)');
    this.checkInterMs = options.checkInterMs ?? 200;
    this.#replicaEnv = options.replicaEnv ?? {};
    const redisPort = options.redisPort ?? (await freePort());
    const redisArgs = [
      '--port',
      String(redisPort),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
    ];
    this.#all.push(await start('redis-server', 'redis-server', redisArgs, {}, /Ready to accept connections/));
    this.redisUrl = `redis://127.0.0.1:${redisPort}`;
    if (options.replicaPorts) this.ports.push(...options.replicaPorts);
    else for (let i = 0; i < (options.replicas ?? 3); i++) this.ports.push(await freePort());
    await Promise.all(this.ports.map((_, index) => this.startReplica(index)));
    const workerArgs = [
      CLI,
      'worker',
      TOOLS,
      '--redis',
      this.redisUrl,
      '--queue',
      this.queue,
      '--threads',
      '1',
    ];
    this.#all.push(
      await start('weft worker', process.execPath, workerArgs, {}, /weft worker: serving queue/),
    );
    const lbPort = options.lbPort ?? (await freePort());
    const env: Record<string, string> = {
      WEFT_LB_BIND: `127.0.0.1:${lbPort}`,
      WEFT_CHECK_INTER_MS: String(this.checkInterMs),
    };
    this.ports.forEach((port, index) => {
      env[`WEFT_REPLICA_${index + 1}`] = `127.0.0.1:${port}`;
    });
    // -db: in the foreground, its diagnostics on stderr. Ready once it accepts connections.
    const balancer = spawnTracked('haproxy', haproxy, ['-db', '-f', HAPROXY_CFG], env);
    this.#all.push(balancer);
    this.balancer = balancer;
    this.lbUrl = `http://127.0.0.1:${lbPort}/mcp`;
    await this.#waitFor(async () => {
      if (!balancer.alive()) throw new Error(`haproxy exited:\n${balancer.output()}`);
      return (await fetch(`http://127.0.0.1:${lbPort}/readyz`)).status === 200;
    }, 'haproxy');
    await this.settle();
  }

  /** Starts replica `index` (again) on its port; resolves once it answers /readyz with 200. */
  async startReplica(index: number): Promise<ClusterProcess> {
    const env = {
      PORT: String(this.ports[index]),
      REDIS_URL: this.redisUrl,
      WEFT_STATE_KEY: this.stateKey,
      WEFT_QUEUE: this.queue,
      ...this.#replicaEnv,
    };
    const replica = await start(
      `replica ${index + 1}`,
      process.execPath,
      [SERVER],
      env,
      /weft replica: listening/,
    );
    this.#all.push(replica);
    this.replicas[index] = replica;
    await this.#waitFor(
      async () => (await fetch(`http://127.0.0.1:${this.ports[index]}/readyz`)).status === 200,
      `replica ${index + 1}`,
    );
    return replica;
  }

  /** Waits long enough for HAProxy to have seen every change of readiness (rise/fall 2, plus slack). */
  settle(): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, this.checkInterMs * 4));
  }

  async #waitFor(check: () => Promise<boolean>, what: string): Promise<void> {
    const deadline = Date.now() + READY_WITHIN_MS;
    for (;;) {
      if (
        await check().catch((error: Error) => (/exited/.test(error.message) ? Promise.reject(error) : false))
      )
        return;
      if (Date.now() > deadline) throw new Error(`${what} did not answer /readyz with 200 in time`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Every process started so far, restarted ones included. */
  get processes(): readonly ClusterProcess[] {
    return this.#all;
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.#all.map(async (each) => {
        if (each.alive()) each.child.kill('SIGKILL');
        await each.exited;
      }),
    );
  }
}

/** A port from a flag or the environment: a number from 1 to 65535, else a message naming both. */
function portOf(text: string | undefined, flag: string, variable: string): number | undefined {
  if (text === undefined || text === '') return undefined;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new Error(`${flag} (or ${variable}) must be a port from 1 to 65535, got "${text}"`);
  }
  return port;
}

/** The ports the command line, else the environment, asks for. */
export function clusterPorts(
  argv: string[],
  env: NodeJS.ProcessEnv,
): Pick<LocalClusterOptions, 'lbPort' | 'replicaPorts' | 'redisPort'> {
  const { values } = parseArgs({
    args: argv,
    options: {
      'lb-port': { type: 'string' },
      'replica-ports': { type: 'string' },
      'redis-port': { type: 'string' },
    },
    strict: true,
  });
  const replicas = values['replica-ports'] ?? env.WEFT_REPLICA_PORTS;
  const replicaPorts = replicas
    ?.split(',')
    .map((each) => portOf(each.trim(), '--replica-ports', 'WEFT_REPLICA_PORTS')!);
  if (replicaPorts !== undefined && replicaPorts.length !== 3) {
    throw new Error(
      `--replica-ports (or WEFT_REPLICA_PORTS) takes three ports, as haproxy.cfg names three replicas; got "${replicas}"`,
    );
  }
  return {
    lbPort: portOf(values['lb-port'] ?? env.WEFT_LB_PORT, '--lb-port', 'WEFT_LB_PORT'),
    redisPort: portOf(values['redis-port'] ?? env.WEFT_REDIS_PORT, '--redis-port', 'WEFT_REDIS_PORT'),
    replicaPorts,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  let ports: ReturnType<typeof clusterPorts>;
  try {
    ports = clusterPorts(process.argv.slice(2), process.env);
  } catch (error) {
    process.stderr.write(
      `weft deploy: ${(error as Error).message}\n` +
        'usage: node local-cluster.js [--lb-port N] [--replica-ports N,N,N] [--redis-port N]\n',
    );
    process.exit(2);
  }
  const cluster = await LocalCluster.start({
    checkInterMs: 1_000,
    replicaEnv: { WEFT_DRAIN_DELAY_MS: '3000' },
    ...ports,
  }).catch((error: Error) => {
    // A port in use shows here, in the words of the process that could not bind it.
    process.stderr.write(`weft deploy: could not start the cluster: ${error.message}\n`);
    process.exit(1);
  });
  process.stderr.write(
    `weft deploy: ${cluster.lbUrl} (replicas on ${cluster.ports.join(', ')}; Redis ${cluster.redisUrl}); ` +
      'Ctrl-C stops everything\n',
  );
  process.once('SIGINT', () => void cluster.stop().then(() => process.exit(0)));
}
