/**
 * weft's built-in middleware (`weft/middleware`): request logging, response caching, a per-tool
 * result size limit. Install them with `server.use(...)`.
 */
export { type RequestLogEntry, type RequestLoggingOptions, requestLogging } from './request-logging.js';
export { type ResponseCacheOptions, responseCache } from './response-cache.js';
export { type ResultSizeLimitOptions, resultSizeLimit } from './result-size-limit.js';
