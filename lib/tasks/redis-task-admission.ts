/**
 * The Redis task store's limits (task-limits.ts), kept atomically in Redis so every replica counts
 * the same tasks: one Lua script drops expired members, makes room by deleting the oldest finished
 * records (the caller's own for its bound, anyone's for the store's), and creates the record only
 * when there is room, else answers which limit refused and when the next record expires.
 *
 * Keys (under the store's prefix): `task-callers:<caller>` and `task-all`, sorted sets of live task
 * ids by expiry; `task-done:<caller>` (ids) and `task-done` ("<id> <caller>"), finished tasks by
 * when they finished. Counts only: bytes are bounded per record by the server's `maxResultBytes`.
 */

/**
 * KEYS: task, caller set, all set, caller done, all done, owner list.
 * ARGV: json, px (0: no ttl), now, expiresAt (inf: none), maxPerCaller, maxTasks, taskId, caller,
 * prefix, has owner (1/0).
 */
export const CREATE_TASK = `
local now = tonumber(ARGV[3])
local px = tonumber(ARGV[2])
local prefix = ARGV[9]
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
local function drop(id, caller)
  redis.call('DEL', prefix .. 'task:' .. id)
  redis.call('ZREM', prefix .. 'task-callers:' .. caller, id)
  redis.call('ZREM', prefix .. 'task-done:' .. caller, id)
  redis.call('ZREM', KEYS[3], id)
  redis.call('ZREM', KEYS[5], id .. ' ' .. caller)
end
local function soonest(key)
  local first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  return first[2] or 'inf'
end
while redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[5]) do
  local oldest = redis.call('ZPOPMIN', KEYS[4])
  if #oldest == 0 then return {'maxPerCaller', soonest(KEYS[2])} end
  drop(oldest[1], ARGV[8])
end
while redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[6]) do
  local oldest = redis.call('ZPOPMIN', KEYS[5])
  if #oldest == 0 then return {'maxTasks', soonest(KEYS[3])} end
  local space = string.find(oldest[1], ' ', 1, true)
  drop(string.sub(oldest[1], 1, space - 1), string.sub(oldest[1], space + 1))
end
local written
if px > 0 then written = redis.call('SET', KEYS[1], ARGV[1], 'PX', px, 'NX')
else written = redis.call('SET', KEYS[1], ARGV[1], 'NX') end
if not written then return {'exists', ''} end
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[7])
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[7])
if ARGV[10] == '1' then redis.call('ZADD', KEYS[6], 0, ARGV[7]) end
for _, key in ipairs({KEYS[2], KEYS[4]}) do
  local left = redis.call('PTTL', key)
  if px == 0 then redis.call('PERSIST', key)
  elseif left ~= -1 and left < px then redis.call('PEXPIRE', key, px) end
end
return {'ok', ''}
`;

/** The keys of a caller's sets and of the store's (see the module comment). */
export function admissionKeys(prefix: string, caller: string) {
  return {
    caller: `${prefix}task-callers:${caller}`,
    all: `${prefix}task-all`,
    callerDone: `${prefix}task-done:${caller}`,
    allDone: `${prefix}task-done`,
  };
}
