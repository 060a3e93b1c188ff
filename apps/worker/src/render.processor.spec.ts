import { type Job, UnrecoverableError } from 'bullmq';
import pino from 'pino';
import { ConversionFailedError, type PdfConverter } from '@app/converters';
import { digestOf, TemplateSyntaxError, UndefinedVariableError } from '@app/engine';
import {
  decodeFailure,
  decodeReply,
  httpStatusOf,
  payloadKeys,
  type Reply,
  replyKey,
  type RenderJob,
  type RenderJobResult,
  templateKey,
} from '@app/contracts';
import { buildDocx, p } from '../../../test/support/docx-builder';
import { docxPlainText } from '../../../test/support/docx-text';
import { redisForTests } from '../../../test/service-harness';
import { conversionBudget, createRenderProcessor, isRetryable, jobFailure } from './render.processor';

describe('job failure classification', () => {
  it('fails caller mistakes at once, with the error body as reason', () => {
    const f = jobFailure(new UndefinedVariableError(['customer']));
    expect(f).toBeInstanceOf(UnrecoverableError);
    expect(decodeFailure(f.message).toBody()).toEqual(new UndefinedVariableError(['customer']).toBody());
    expect(
      jobFailure(new TemplateSyntaxError([{ message: 'm', tag: 't', context: 'c', part: 'p' }])),
    ).toBeInstanceOf(UnrecoverableError);
  });

  it('retries converter outages', () => {
    for (const e of [
      new ConversionFailedError('down', { retryable: true }),
      new ConversionFailedError('busy', { reason: 'converter_queue_full' }),
      Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:3000'), { code: 'ECONNREFUSED' }),
      new TypeError('fetch failed', { cause: Object.assign(new Error('x'), { code: 'UND_ERR_SOCKET' }) }),
    ]) {
      expect(isRetryable(e)).toBe(true);
      const f = jobFailure(e);
      expect(f).not.toBeInstanceOf(UnrecoverableError);
      expect(httpStatusOf(decodeFailure(f.message).errorType)).toBe(502);
    }
  });

  it('does not retry a document LibreOffice cannot convert, nor a bug', () => {
    expect(isRetryable(new ConversionFailedError('bad', { reason: 'libreoffice_error' }))).toBe(false);
    const bug = jobFailure(new TypeError('x is undefined'));
    expect(bug).toBeInstanceOf(UnrecoverableError);
    const body = decodeFailure(bug.message).toBody();
    expect(body.error_type).toBe('internal_error');
    expect(body.message).not.toContain('x is undefined');
  });
});

describe('the conversion time limit', () => {
  it('is CONVERSION_TIMEOUT_MS within what is left of the job budget, less a second for the answer', () => {
    const enqueuedAt = 1_000_000;
    // 5 s spent waiting and filling: 60 - 5 - 1 s left.
    expect(conversionBudget(enqueuedAt, { jobTimeoutMs: 60_000 }, enqueuedAt + 5_000)).toBe(54_000);
    expect(
      conversionBudget(enqueuedAt, { jobTimeoutMs: 60_000, convertTimeoutMs: 30_000 }, enqueuedAt + 5_000),
    ).toBe(30_000);
    expect(
      conversionBudget(enqueuedAt, { jobTimeoutMs: 60_000, convertTimeoutMs: 30_000 }, enqueuedAt + 40_000),
    ).toBe(19_000);
    // Never zero or negative: the converter refuses those.
    expect(conversionBudget(enqueuedAt, { jobTimeoutMs: 60_000 }, enqueuedAt + 70_000)).toBe(100);
    expect(conversionBudget(enqueuedAt, { convertTimeoutMs: 30_000 })).toBe(30_000);
  });
});

describe('the template bytes a worker keeps', () => {
  const redisServer = redisForTests();

  /** A job of the API's shape, rendered to .docx (no converter needed). */
  async function runJob(
    process: ReturnType<typeof createRenderProcessor>,
    id: string,
    template: Buffer,
    name: string,
  ): Promise<string> {
    const q = { prefix: '{w}', name: 'render' };
    const digest = digestOf(template);
    const keys = { ...payloadKeys(q, id), templateKey: templateKey(q, digest) };
    await redisServer.client.set(keys.requestKey, JSON.stringify({ template_data: { name } }));
    const data: RenderJob = {
      requestId: id,
      ...keys,
      templateDigest: digest,
      filename: 't.docx',
      templateBytes: template.length,
      requestBytes: 0,
      imageCount: 0,
      templateChecked: true,
      options: { undefined: 'empty', output: 'docx' },
    };
    const job = { id, data, attemptsStarted: 1, timestamp: Date.now() } as unknown as Job<
      RenderJob,
      RenderJobResult
    >;
    const result = await process(job);
    return docxPlainText((await redisServer.client.getBuffer(result.resultKey))!);
  }

  it('renders a template it read before without reading it again, and reads one it lacks', async () => {
    const process = createRenderProcessor({
      redis: redisServer.client,
      converter: { name: 'none' } as unknown as PdfConverter, // .docx output: never called
      workerId: 'w',
      payloadTtlMs: 60_000,
      logger: pino({ level: 'silent' }),
    });
    const template = buildDocx({ body: [p('Hello {{ name }}')] });
    await redisServer.client.set(
      templateKey({ prefix: '{w}', name: 'render' }, digestOf(template)),
      template,
    );
    expect(await runJob(process, 'a', template, 'first')).toContain('Hello first');

    await redisServer.client.flushall(); // the shared key is gone: the worker still has the bytes
    expect(await runJob(process, 'b', template, 'second')).toContain('Hello second');

    // Another template, not in Redis either: the request has expired for this worker.
    const other = buildDocx({ body: [p('Bye {{ name }}')] });
    await expect(runJob(process, 'c', other, 'third')).rejects.toThrow(
      /expired before a worker could take it/,
    );
  });

  it('pushes the result to the reply list a job names, with a TTL, and deletes its request', async () => {
    const q = { prefix: '{w}', name: 'render' };
    const template = buildDocx({ body: [p('Hello {{ name }}')] });
    const digest = digestOf(template);
    const keys = { ...payloadKeys(q, 'r1'), templateKey: templateKey(q, digest) };
    const list = replyKey(q, 'api-1');
    await redisServer.client.set(keys.templateKey, template);
    await redisServer.client.set(keys.requestKey, JSON.stringify({ template_data: { name: 'reply' } }));
    const process = createRenderProcessor({
      redis: redisServer.client,
      converter: { name: 'none' } as unknown as PdfConverter,
      workerId: 'w',
      payloadTtlMs: 60_000,
      logger: pino({ level: 'silent' }),
    });
    const data: RenderJob = {
      requestId: 'req-1',
      ...keys,
      replyKey: list,
      templateDigest: digest,
      filename: 't.docx',
      templateBytes: template.length,
      requestBytes: 0,
      imageCount: 0,
      templateChecked: true,
      options: { undefined: 'empty', output: 'docx' },
    };
    const job = { id: 'r1', data, attemptsStarted: 1, timestamp: Date.now() } as unknown as Job<
      RenderJob,
      RenderJobResult
    >;
    const result = await process(job);
    expect(result.replyKey).toBe(list);

    const frames = await redisServer.client.lrangeBuffer(list, 0, -1);
    expect(frames).toHaveLength(1);
    const reply = decodeReply(frames[0]) as Reply;
    expect(reply.jobId).toBe('r1');
    expect(reply.contentType).toBe(result.contentType);
    expect(reply.body.length).toBe(result.bytes);
    expect(docxPlainText(reply.body)).toContain('Hello reply');
    const ttl = await redisServer.client.pttl(list);
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    expect(await redisServer.client.exists(keys.requestKey, keys.resultKey)).toBe(0);
  });
});
