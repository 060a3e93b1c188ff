-- A request's admission and its payload in one round trip (admission.ts).
-- KEYS: heartbeat set, BullMQ's wait list, prioritized set, delayed set, template key, request key.
-- ARGV: max waiting jobs, TTL (ms), template bytes ('' = renew the stored one), request JSON.
-- Returns {live workers, waiting jobs, outcome (0 refused, 1 stored, 2 template missing), Redis' clock in ms}.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local workers = redis.call('ZCOUNT', KEYS[1], now, '+inf')
local waiting = redis.call('LLEN', KEYS[2]) + redis.call('ZCARD', KEYS[3]) + redis.call('ZCARD', KEYS[4])
if workers == 0 or waiting >= tonumber(ARGV[1]) then
  return {workers, waiting, 0, now}
end
if ARGV[3] == '' then
  if redis.call('PEXPIRE', KEYS[5], ARGV[2]) == 0 then
    return {workers, waiting, 2, now}
  end
else
  redis.call('SET', KEYS[5], ARGV[3], 'PX', ARGV[2])
end
redis.call('SET', KEYS[6], ARGV[4], 'PX', ARGV[2])
return {workers, waiting, 1, now}
