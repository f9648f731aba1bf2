/**
 * The Piscina worker of the "careful user" peer: the CPU tools' bodies, run off the event loop.
 */
import { fibonacci, hashChain, spin } from './cpu-work.js';
import { argumentSize, payloadImage, payloadLines, payloadText } from './payload-work.js';

export type OffloadedTask =
  | { tool: 'noop' }
  | { tool: 'spin'; ms: number }
  | { tool: 'fib'; n: number }
  | { tool: 'hash_chain'; text: string; rounds: number }
  | { tool: 'payload_text' | 'payload_image' | 'payload_lines'; bytes: number }
  | { tool: 'payload_arg'; data: string; kind: 'text' | 'image' };

export default function run(task: OffloadedTask): string {
  switch (task.tool) {
    case 'noop':
      return 'ok';
    case 'spin':
      return spin(task.ms);
    case 'fib':
      return JSON.stringify({ n: task.n, value: fibonacci(task.n) });
    case 'hash_chain':
      return hashChain(task.text, task.rounds);
    case 'payload_text':
      return payloadText(task.bytes);
    case 'payload_image':
      return payloadImage(task.bytes);
    case 'payload_lines':
      return payloadLines(task.bytes);
    case 'payload_arg':
      return argumentSize(task.data, task.kind);
  }
}
