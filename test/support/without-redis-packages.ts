/**
 * A module-resolution hook (`node --import <this file>`) under which `ioredis` and `bullmq` cannot
 * be found, as in a project that installed only weft. Tests run weft under it in a child process.
 */
import { register } from 'node:module';

const hooks = `
export async function resolve(specifier, context, next) {
  if (specifier === 'ioredis' || specifier === 'bullmq' || specifier.startsWith('ioredis/') || specifier.startsWith('bullmq/')) {
    const error = new Error('Cannot find package ' + specifier + ' (hidden by without-redis-packages)');
    error.code = 'ERR_MODULE_NOT_FOUND';
    throw error;
  }
  return next(specifier, context);
}
`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
