-- Notes the first start of an asynchronous job's item in the job's record (job-record-store.ts);
-- 0 when the record is gone (cancelled, expired), so it is never re-created without its TTL.
-- KEYS: the job's record. ARGV: the time (ms).
if redis.call('exists', KEYS[1]) == 0 then return 0 end
redis.call('hsetnx', KEYS[1], 'started_at', ARGV[1])
return 1
