-- Workers of a registry set whose entry has not expired, on Redis' clock (worker-registry.ts).
-- KEYS: the registry's sorted set.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return redis.call('ZCOUNT', KEYS[1], now, '+inf')
