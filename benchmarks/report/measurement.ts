/**
 * What a benchmark run produces: flat measurements, one number each, plus notes for what could not
 * be measured and why. Flat rows are what the JSON file, the tables and the charts all read.
 */

import type { TransportName } from '../load/wire.js';
import type { ServerId } from '../servers/server-catalog.js';

export type ParamValue = string | number | boolean;

export interface Measurement {
  scenario: string;
  server: ServerId;
  transport: TransportName;
  metric: string;
  value: number;
  unit: string;
  params: Record<string, ParamValue>;
}

export interface Note {
  scenario: string;
  /** 'runner' when the note is about the run itself (a scenario that failed). */
  server: ServerId | 'runner';
  transport: TransportName;
  text: string;
}
