/**
 * libs/queue's Redis stores against a real Redis. The keys are pinned as the code before the
 * stores wrote them (raw commands here): data an older API or worker left in Redis is read by
 * the new code, and what the new code writes lands under the same keys, with its TTL.
 */
import {
  type AsyncJobRecord,
  asyncJobKeys,
  converterHealthKey,
  converterInfoKey,
  heartbeatKey,
  itemReplyKey,
  payloadKeys,
  templateKey,
} from '@app/contracts';
import { JobRecordStore, PayloadStore, WorkerRegistry } from '@app/queue';
import { redisForTests } from './service-harness';

const redis = redisForTests();
const names = { prefix: '{stores}', name: 'render' };
const client = () => redis.client;

describe('PayloadStore', () => {
  const keys = {
    requestKey: payloadKeys(names, 'job-1').requestKey,
    templateKey: templateKey(names, 'abc+/=='),
  };

  it('reads a payload stored under the keys the API has always used, with Redis’ clock', async () => {
    expect(keys.requestKey).toBe('{stores}:render-payload:job-1:request');
    expect(keys.templateKey).toBe('{stores}:render-template:abc-_');
    await client().set(keys.requestKey, '{"data":{"n":9.0}}', 'PX', 10_000);
    await client().set(keys.templateKey, Buffer.from([0, 1, 255]), 'PX', 10_000);
    const [seconds] = await client().time();
    const read = await new PayloadStore(client()).read(keys, true);
    expect(read.requestJson).toBe('{"data":{"n":9.0}}');
    expect(read.template).toEqual(Buffer.from([0, 1, 255]));
    expect(Math.abs(read.redisNow - Number(seconds) * 1000)).toBeLessThan(5000);
    // The worker that keeps the template asks for the request alone.
    expect((await new PayloadStore(client()).read(keys, false)).template).toBeNull();
  });

  it('drops the request and leaves the shared template', async () => {
    await new PayloadStore(client()).drop(keys.requestKey);
    expect(await client().exists(keys.requestKey)).toBe(0);
    expect(await client().exists(keys.templateKey)).toBe(1);
    expect((await new PayloadStore(client()).read(keys, true)).requestJson).toBeNull();
  });
});

describe('JobRecordStore', () => {
  const jobs = () => new JobRecordStore(client(), names);
  const record: AsyncJobRecord = {
    status: 'queued',
    created_at: '1000',
    expires_at: '2000',
    total: '2',
    output: 'zip',
    filename: 'out.zip',
    content_type: 'application/zip',
    base_url: 'http://api',
  };

  it('creates a job under its record, template and items’ request keys, with the TTL, in one go', async () => {
    await jobs().create(
      'J1',
      { record, template: Buffer.from('T'), requestJsons: ['{"a":1}', '{"a":2}'] },
      60_000,
    );
    const keys = asyncJobKeys(names, 'J1');
    expect(keys.record).toBe('{stores}:render-job:J1');
    expect(await client().hgetall(keys.record)).toEqual(record);
    expect(await client().get(keys.template)).toBe('T');
    expect(await client().get('{stores}:render-payload:J1-0:request')).toBe('{"a":1}');
    expect(await client().get('{stores}:render-payload:J1-1:request')).toBe('{"a":2}');
    for (const key of [keys.record, keys.template, jobs().itemRequestKey('J1', 1)]) {
      const ttl = await client().pttl(key);
      expect(ttl).toBeGreaterThan(50_000);
      expect(ttl).toBeLessThanOrEqual(60_000);
    }
  });

  it('reads a record written by the old code, and its status alone', async () => {
    const key = asyncJobKeys(names, 'OLD').record;
    await client().hset(key, { ...record, status: 'completed' });
    await client().set(asyncJobKeys(names, 'OLD').result, Buffer.from('%PDF'));
    expect(await jobs().read('OLD')).toMatchObject({ status: 'completed', total: '2' });
    expect(await jobs().status('OLD')).toBe('completed');
    expect(await jobs().result('OLD')).toEqual(Buffer.from('%PDF'));
    expect(await jobs().read('NONE')).toEqual({});
    expect(await jobs().status('NONE')).toBeNull();
  });

  it('marks an item started once, and never re-creates a cancelled job’s record', async () => {
    const key = asyncJobKeys(names, 'J1').record;
    expect(await JobRecordStore.markStarted(client(), key, 5)).toBe(true);
    expect(await JobRecordStore.markStarted(client(), key, 6)).toBe(true);
    expect(await client().hget(key, 'started_at')).toBe('5');
    expect(await JobRecordStore.markStarted(client(), asyncJobKeys(names, 'GONE').record)).toBe(false);
    expect(await client().exists(asyncJobKeys(names, 'GONE').record)).toBe(0);
  });

  it('reads the items’ first replies in order, null where none', async () => {
    await client().rpush(itemReplyKey(names, 'J1', 0), Buffer.from('first'), Buffer.from('second'));
    expect(itemReplyKey(names, 'J1', 0)).toBe('{stores}:render-job:J1:item:0');
    expect(await jobs().firstReplies('J1', 2)).toEqual([Buffer.from('first'), null]);
  });

  it('writes the outcome with RESULT_TTL, then drops the items and the record', async () => {
    await jobs().finish('J1', { result: Buffer.from('ZIP') }, 7000, 30_000);
    const keys = asyncJobKeys(names, 'J1');
    expect(await client().hgetall(keys.record)).toMatchObject({
      status: 'completed',
      finished_at: '7000',
      expires_at: '37000',
      bytes: '3',
      started_at: '5',
    });
    expect(await client().pttl(keys.record)).toBeLessThanOrEqual(30_000);
    expect(await client().getBuffer(keys.result)).toEqual(Buffer.from('ZIP'));

    await jobs().deleteItems('J1', 2);
    expect(
      await client().exists(keys.template, jobs().itemRequestKey('J1', 0), itemReplyKey(names, 'J1', 0)),
    ).toBe(0);
    await jobs().deleteRecord('J1');
    expect(await client().exists(keys.record, keys.result)).toBe(0);
  });

  it('writes a failure’s error body', async () => {
    await jobs().create('J2', { record, template: Buffer.from('T'), requestJsons: ['{}'] }, 60_000);
    await jobs().finish(
      'J2',
      { error: { status: 'error', error_type: 'x', message: 'm', details: {} } },
      1,
      1000,
    );
    expect(await jobs().read('J2')).toMatchObject({
      status: 'failed',
      error: '{"status":"error","error_type":"x","message":"m","details":{}}',
    });
    await jobs().discard('J2', 1);
    expect(await client().exists(asyncJobKeys(names, 'J2').record, jobs().itemRequestKey('J2', 0))).toBe(0);
  });
});

describe('WorkerRegistry', () => {
  const registry = () => new WorkerRegistry(client(), names);

  it('counts live workers and healthy converters, and publishes the converter', async () => {
    const info = { kind: 'libreoffice', version: 'LibreOffice 25.2' };
    await registry().beat('w1', 10_000, { healthy: true, info });
    await registry().beat('w2', 10_000, { healthy: false, info });
    expect(await registry().liveWorkers()).toBe(2);
    expect(await registry().healthyConverters()).toBe(1);
    expect(await registry().converterInfo()).toEqual(info);
    // Under the keys the API has always read.
    expect(await client().zcard(heartbeatKey(names))).toBe(2);
    expect(await client().zcard(converterHealthKey(names))).toBe(1);
    expect(JSON.parse((await client().get(converterInfoKey(names)))!)).toEqual(info);

    await registry().beat('w1', 10_000, { healthy: false, info });
    expect(await registry().healthyConverters()).toBe(0);
    await registry().leave('w1');
    expect(await registry().liveWorkers()).toBe(1);
  });

  it('counts no worker whose heartbeat expired, and reads no malformed converter info', async () => {
    await registry().beat('brief', 1, { healthy: true, info: { kind: 'k', version: 'v' } });
    await new Promise((r) => setTimeout(r, 20));
    await registry().leave('w2');
    expect(await registry().liveWorkers()).toBe(0);
    await client().set(converterInfoKey(names), '{"kind":1}');
    expect(await registry().converterInfo()).toBeNull();
  });
});
