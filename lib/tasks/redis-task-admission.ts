/**
 * The Redis task store's limits (task-limits.ts: tasks and bytes, per caller and in all), kept in
 * Redis so every replica counts the same tasks, and changed only inside Lua scripts so two replicas
 * never both take the last room. The counterpart of the memory store's task-ledger.ts, with the
 * same semantics:
 * - CREATE_TASK drops expired members, makes room by deleting the oldest finished records (the
 *   caller's own for its bounds, anyone's for the store's), and creates the record only when there
 *   is room, else answers which limit refused and when the scope's next record expires.
 * - REWRITE_TASK is an update's compare-and-set: it writes the record only if Redis still holds the
 *   text the update read (no JSON is re-encoded in Redis, so results keep their exact shape), moves
 *   the byte totals to the new size, marks a finished record evictable, and, over a byte limit,
 *   evicts older finished records, never the one just written (its result is what the caller awaits).
 *
 * Keys (under the store's prefix), for a caller's scope and the store's:
 * - `task-callers:<caller>` / `task-all`: sorted sets of live task ids by expiry (inf: no ttl);
 * - `task-sizes:<caller>` / `task-sizes`: each of those ids' bytes (recordBytes), so a record that
 *   expires or is evicted gives back exactly what it took; `task-bytes:<caller>` / `task-bytes`:
 *   their sum;
 * - `task-done:<caller>` (ids) / `task-done` ("<id> <caller>"): finished tasks by when they finished.
 * A record expires on its own (PX); a scope drops its id and bytes the next time a script reads that
 * scope. A caller's keys expire with its last record (`settle`), so nothing stays in Redis for a
 * caller that is gone; the store's own keys persist, holding at most `maxTasks` ids. The scripts
 * reach other callers' keys from the prefix (eviction must), so the store needs one Redis, not a
 * Cluster.
 */

/** Functions both scripts share; they expect the locals `prefix` and `now` (epoch ms). */
const LEDGER = `
local function scope(caller)
  local tail = caller and (':' .. caller) or ''
  return {
    caller = caller,
    set = prefix .. (caller and 'task-callers' or 'task-all') .. tail,
    sizes = prefix .. 'task-sizes' .. tail,
    bytes = prefix .. 'task-bytes' .. tail,
    done = prefix .. 'task-done' .. tail,
  }
end
local function count(s) return redis.call('ZCARD', s.set) end
local function bytes(s) return tonumber(redis.call('GET', s.bytes) or '0') end
local function soonest(s) return redis.call('ZRANGE', s.set, 0, 0, 'WITHSCORES')[2] or 'inf' end
-- Takes a record's bytes out of a scope's total; nothing when the scope does not count it.
local function uncount(s, id)
  local size = redis.call('HGET', s.sizes, id)
  if not size then return end
  redis.call('HDEL', s.sizes, id)
  if redis.call('DECRBY', s.bytes, size) <= 0 then redis.call('DEL', s.bytes) end
end
-- Forgets the ids whose records Redis has already expired (PX), with their bytes.
local function forget(s)
  local gone = redis.call('ZRANGEBYSCORE', s.set, '-inf', now)
  for _, id in ipairs(gone) do uncount(s, id) end
  if #gone > 0 then redis.call('ZREMRANGEBYSCORE', s.set, '-inf', now) end
end
-- A caller's keys live as long as its last record, or go when it has none left.
local function settle(caller)
  local s = scope(caller)
  local last = redis.call('ZRANGE', s.set, -1, -1, 'WITHSCORES')[2]
  for _, key in ipairs({s.set, s.sizes, s.bytes, s.done}) do
    if not last then redis.call('DEL', key)
    elseif last == 'inf' then redis.call('PERSIST', key)
    else redis.call('PEXPIRE', key, math.max(1, math.ceil(tonumber(last) - now))) end
  end
end
-- Deletes a record and takes it out of its caller's scope and the store's.
local function drop(id, caller)
  redis.call('DEL', prefix .. 'task:' .. id)
  local mine, all = scope(caller), scope(nil)
  for _, s in ipairs({mine, all}) do
    uncount(s, id)
    redis.call('ZREM', s.set, id)
  end
  redis.call('ZREM', mine.done, id)
  redis.call('ZREM', all.done, id .. ' ' .. caller)
  settle(caller)
end
-- Marks a record finished in a scope, after every record finished before (within one ms too:
-- equal scores would sort by member, not by when they finished).
local function finish(s, member)
  local newest = redis.call('ZRANGE', s.done, -1, -1, 'WITHSCORES')[2]
  redis.call('ZADD', s.done, math.max(now, (tonumber(newest) or 0) + 1), member)
end
-- Drops a scope's oldest finished records while over() holds, never keep; true when still over.
local function evict(s, over, keep)
  while over() do
    local oldest = redis.call('ZRANGE', s.done, 0, 1)
    local member = oldest[1]
    if member == keep then member = oldest[2] end
    if not member then return true end
    if s.caller then drop(member, s.caller)
    else
      local space = string.find(member, ' ', 1, true)
      if space then drop(string.sub(member, 1, space - 1), string.sub(member, space + 1))
      else redis.call('ZREM', s.done, member) end
    end
  end
  return false
end
`;

/**
 * KEYS: task, owner list (untouched when the task has no owner).
 * ARGV: prefix, now, json, bytes, px (0: no ttl), expiresAt (inf: none), taskId, caller,
 * has owner (1/0), maxPerCaller, maxBytesPerCaller, maxTasks, maxBytes.
 * Answers {'ok'|'exists'|<the limit that refused>, <when the scope's next record expires>}.
 */
export const CREATE_TASK = `
local prefix, now = ARGV[1], tonumber(ARGV[2])
${LEDGER}
local size, px, id, caller = tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[7], ARGV[8]
local maxPerCaller, maxBytesPerCaller = tonumber(ARGV[10]), tonumber(ARGV[11])
local maxTasks, maxBytes = tonumber(ARGV[12]), tonumber(ARGV[13])
if redis.call('EXISTS', KEYS[1]) == 1 then return {'exists', ''} end
local mine, all = scope(caller), scope(nil)
forget(mine)
forget(all)
-- As task-ledger.ts: a caller's bounds apply once it keeps a record.
if count(mine) > 0 then
  if evict(mine, function() return count(mine) + 1 > maxPerCaller end) then
    return {'maxPerCaller', soonest(mine)}
  end
  if evict(mine, function() return bytes(mine) + size > maxBytesPerCaller end) then
    return {'maxBytesPerCaller', soonest(mine)}
  end
end
if evict(all, function() return count(all) + 1 > maxTasks end) then return {'maxTasks', soonest(all)} end
if evict(all, function() return bytes(all) + size > maxBytes end) then return {'maxBytes', soonest(all)} end
if px > 0 then redis.call('SET', KEYS[1], ARGV[3], 'PX', px)
else redis.call('SET', KEYS[1], ARGV[3]) end
for _, s in ipairs({mine, all}) do
  redis.call('ZADD', s.set, ARGV[6], id)
  redis.call('HSET', s.sizes, id, size)
  redis.call('INCRBY', s.bytes, size)
end
settle(caller)
if ARGV[9] == '1' then
  -- The owner's listing outlives its newest record; PTTL -1 before the ZADD: a record without ttl.
  local left = redis.call('PTTL', KEYS[2])
  redis.call('ZADD', KEYS[2], 0, id)
  if px == 0 then redis.call('PERSIST', KEYS[2])
  elseif left ~= -1 then redis.call('PEXPIRE', KEYS[2], math.max(left, px)) end
end
return {'ok', ''}
`;

/**
 * KEYS: task.
 * ARGV: prefix, now, the text read, the text to write, bytes, taskId, caller, finished (1/0),
 * maxPerCaller, maxBytesPerCaller, maxTasks, maxBytes.
 * Answers 1 when written, 0 when the record changed (or went) since it was read.
 */
export const REWRITE_TASK = `
local prefix, now = ARGV[1], tonumber(ARGV[2])
${LEDGER}
if redis.call('GET', KEYS[1]) ~= ARGV[3] then return 0 end
redis.call('SET', KEYS[1], ARGV[4], 'KEEPTTL')
local size, id, caller = tonumber(ARGV[5]), ARGV[6], ARGV[7]
local maxPerCaller, maxBytesPerCaller = tonumber(ARGV[9]), tonumber(ARGV[10])
local maxTasks, maxBytes = tonumber(ARGV[11]), tonumber(ARGV[12])
local mine, all = scope(caller), scope(nil)
forget(mine)
forget(all)
for _, s in ipairs({mine, all}) do
  local was = redis.call('HGET', s.sizes, id)
  if was then
    redis.call('HSET', s.sizes, id, size)
    redis.call('INCRBY', s.bytes, size - tonumber(was))
  end
end
if ARGV[8] == '1' then
  finish(mine, id)
  finish(all, id .. ' ' .. caller)
  -- Entries of records that expired on their own are never popped: only the newest are kept.
  redis.call('ZREMRANGEBYRANK', mine.done, 0, -maxPerCaller - 1)
  redis.call('ZREMRANGEBYRANK', all.done, 0, -maxTasks - 1)
end
evict(mine, function() return bytes(mine) > maxBytesPerCaller end, id)
evict(all, function() return bytes(all) > maxBytes end, id .. ' ' .. caller)
settle(caller)
return 1
`;
