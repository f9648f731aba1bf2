/**
 * Preloaded with `--import` by the cold-start scenario: writes one `#module <url>` line to stderr
 * for every module the process loads, ES modules (through a loader hook) and CommonJS files alike
 * (Node 20's require() does not pass through ES loader hooks), so that the scenario can count what
 * a server loads by the time it answers.
 */
import { writeSync } from 'node:fs';
import Module, { register } from 'node:module';

const hook = `
import { writeSync } from 'node:fs';
export async function load(url, context, next) {
  writeSync(2, '#module ' + url + '\\n');
  return next(url, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);

type Compile = (this: { filename: string }, content: string, filename: string) => unknown;
const prototype = (Module as unknown as { prototype: { _compile: Compile } }).prototype;
const compile = prototype._compile;
prototype._compile = function (this: { filename: string }, content: string, filename: string) {
  writeSync(2, `#module cjs:${filename}\n`);
  return compile.call(this, content, filename);
};
