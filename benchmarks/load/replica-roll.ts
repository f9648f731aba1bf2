/**
 * The rolling restart itself, shared by the test that checks it (test/deploy/rolling-restart.test.ts)
 * and the benchmark that measures it (benchmarks/scenarios/rolling-restart.ts), so both roll the same
 * cluster the same way: the deploy recipe (examples/deploy/local-cluster.ts) with HAProxy probing
 * every 200 ms, replicas whose drain settings fit that probe, and each replica in turn SIGTERMed,
 * awaited, started again and seen back by HAProxy.
 */
import { type ClusterProcess, LocalCluster } from '../../examples/deploy/local-cluster.js';

/** HAProxy probes every 200 ms, fall 2: the replicas keep serving 1.2 s after readiness turns 503. */
const CHECK_INTER_MS = 200;
const REPLICA_ENV = {
  WEFT_DRAIN_DELAY_MS: '1200',
  WEFT_DRAIN_TIMEOUT_MS: '8000',
  WEFT_SHUTDOWN_GRACE_MS: '5000',
  WEFT_TASK_LEASE_MS: '1500',
};

/** The cluster to roll: three replicas behind HAProxy, drain settings matched to its probe. */
export function startRollingCluster(): Promise<LocalCluster> {
  return LocalCluster.start({ checkInterMs: CHECK_INTER_MS, replicaEnv: REPLICA_ENV });
}

/** How a replica exited: its exit code, or the signal that ended it. */
type Exit = Awaited<ClusterProcess['exited']>;

/**
 * SIGTERMs each replica in turn, waits for it to exit, starts it again and lets HAProxy see it back;
 * `onReplica` hears of each one (its index and how it exited) once it is back. Returns how each
 * replica exited, in order.
 */
export async function rollReplicas(
  cluster: LocalCluster,
  onReplica?: (index: number, exit: Exit) => void,
): Promise<Exit[]> {
  const exits: Exit[] = [];
  for (let index = 0; index < cluster.replicas.length; index++) {
    const replica = cluster.replicas[index]!;
    replica.child.kill('SIGTERM');
    const exit = await replica.exited;
    exits.push(exit);
    await cluster.startReplica(index);
    await cluster.settle();
    onReplica?.(index, exit);
  }
  return exits;
}
