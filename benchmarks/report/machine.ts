/**
 * The machine a run came from, written into every result file: on a shared machine the numbers
 * mean little without the cores, the CPU, the load when the run began and the parallel ceiling.
 */
import { availableParallelism, cpus, loadavg, platform, release, totalmem } from 'node:os';
import type { MachineCapacity } from '../load/machine-capacity.js';

export interface Machine {
  cores: number;
  cpuModel: string;
  nodeVersion: string;
  platform: string;
  memoryGiB: number;
  loadAverageAtStart: number;
  loadAverageAtEnd?: number;
  capacity?: MachineCapacity;
}

export function describeMachine(): Machine {
  return {
    cores: availableParallelism(),
    cpuModel: cpus()[0]?.model ?? 'unknown',
    nodeVersion: process.version,
    platform: `${platform()} ${release()}`,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    loadAverageAtStart: loadavg()[0]!,
  };
}
