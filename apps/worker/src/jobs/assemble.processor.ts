/**
 * The parent of an asynchronous job's flow (libs/contracts/src/async-job.ts). BullMQ runs it once
 * every item has completed, or as soon as one failed (continueParentOnFailure): it builds the
 * result (the one document, a ZIP of the items, or one PDF merged by qpdf), writes it and the
 * job's record with RESULT_TTL_S, drops the items' keys and queues the result's delivery (deliver_to)
 * or the webhook. It holds nothing
 * in memory between runs (its Redis data is libs/queue's JobRecordStore): a worker killed here leaves the parent to stall and be run again by
 * another, which finds the same children's results.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import PizZip from 'pizzip';
import {
  type AsyncJobRecord,
  decodeFailure,
  decodeReply,
  type ErrorBody,
  extensionOf,
  OUTPUT_MEDIA,
  PAGE_IMAGES_ZIP,
  InternalError,
  type QueueNames,
  type RenderJobResult,
  type ResultDeliveryJob,
  TypedError,
} from '@app/contracts';
import { PayloadTooLargeError } from '@app/engine';
import {
  type AssembleJobHandle,
  isFinalFailure,
  JobRecordStore,
  type RedisConnection,
  type ResultDeliveryQueue,
  UnrecoverableError,
  type WebhookQueue,
} from '@app/queue';
import type { Logger } from 'pino';
import type { WorkerMetrics } from '../worker-metrics';
import { currentTraceparent, type SpanHandle, withSpan } from '@app/telemetry';
import { queueJobWebhook } from './job-webhook';

const run = promisify(execFile);

export interface AssembleDeps {
  redis: RedisConnection;
  names: QueueNames;
  webhooks: WebhookQueue;
  deliveries: ResultDeliveryQueue;
  resultTtlS: number;
  maxResultBytes: number;
  logger: Logger;
  metrics?: WorkerMetrics;
}

/** The index a child's key (`<prefix>:<queue>:<jobId>-<index>`) names. */
function indexOfChildKey(key: string): number {
  const m = /-(\d+)$/.exec(key);
  return m ? Number(m[1]) : Number.MAX_SAFE_INTEGER;
}

/** Merges PDFs in order with qpdf (`--empty --pages a.pdf b.pdf … -- out.pdf`). */
export async function mergePdfs(pdfs: Buffer[]): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), 'docx-merge-'));
  try {
    const files = pdfs.map((_, i) => join(dir, `${i}.pdf`));
    await Promise.all(pdfs.map((pdf, i) => writeFile(files[i], pdf)));
    const out = join(dir, 'merged.pdf');
    // Exit code 3 is "succeeded with warnings" (e.g. a recovered xref); the output is written.
    await run('qpdf', ['--empty', '--pages', ...files, '--', out], { maxBuffer: 1024 * 1024 }).catch(
      (e: { code?: unknown }) => {
        if (e.code !== 3) throw e;
      },
    );
    return await readFile(out);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `name` ending in `.extension`: an output format's extension it has is replaced, else appended. */
export function withExtension(name: string, extension: string): string {
  return `${name.replace(OUTPUT_EXTENSION, '')}.${extension}`;
}

const OUTPUT_EXTENSION = new RegExp(
  `\\.(${[...Object.values(OUTPUT_MEDIA), PAGE_IMAGES_ZIP].map((m) => m.extension).join('|')})$`,
  'i',
);

/** A ZIP of the items (stored, not deflated: PDFs are compressed already). */
export function zipItems(items: Array<{ name: string; body: Buffer }>): Buffer {
  const zip = new PizZip();
  for (const { name, body } of items) zip.file(name, body, { binary: true });
  return zip.generate({ type: 'nodebuffer', compression: 'STORE' });
}

export function createAssembleProcessor(deps: AssembleDeps) {
  const jobs = new JobRecordStore(deps.redis, deps.names);
  return function assemble(job: AssembleJobHandle): Promise<{ bytes: number }> {
    // The job's last step, in the trace of the request that submitted it.
    return withSpan('assemble', (span) => assembleJob(job, span), {
      kind: 'consumer',
      traceparent: job.data.traceparent,
      attributes: { 'job.id': job.data.jobId, 'job.items': job.data.total, output: job.data.output },
    });
  };

  async function assembleJob(job: AssembleJobHandle, span: SpanHandle): Promise<{ bytes: number }> {
    const { jobId, total, output } = job.data;
    const cleanup = () => jobs.deleteItems(jobId, total).catch(() => 0);
    const log = deps.logger.child({ jobId });
    const record = await jobs.read(jobId);
    if (!record.created_at) {
      // Cancelled (DELETE) or expired: nothing to answer.
      await job.removeUnprocessedChildren().catch(() => undefined);
      await cleanup();
      log.info(`job ${jobId}: its record is gone (cancelled); nothing assembled`);
      return { bytes: 0 };
    }
    try {
      const failedChildren = await job.getFailedChildrenValues();
      const failedKeys = Object.keys(failedChildren).sort((a, b) => indexOfChildKey(a) - indexOfChildKey(b));
      if (failedKeys.length > 0) {
        // The rest would be work for nobody.
        await job.removeUnprocessedChildren().catch(() => undefined);
        const index = indexOfChildKey(failedKeys[0]);
        const error = decodeFailure(failedChildren[failedKeys[0]]).toBody();
        span.fail(error.error_type);
        if (output !== 'single') error.details = { ...error.details, item_index: index };
        deps.metrics?.batchItems.inc({ outcome: 'failed' }, failedKeys.length);
        await finish(job, record, { error });
        log.info(`job ${jobId} failed: item ${index}: ${error.error_type}`);
        throw new UnrecoverableError(JSON.stringify(error));
      }
      const values = await job.getChildrenValues<RenderJobResult>();
      const byIndex = new Map(Object.entries(values).map(([key, value]) => [indexOfChildKey(key), value]));
      for (let i = 0; i < total; i++) if (!byIndex.has(i)) throw new Error(`item ${i} has no result`);
      // Every item's first reply (an item run twice, its worker dead after the push, pushed twice),
      // in one round trip rather than one per item.
      const frames = await jobs.firstReplies(jobId, total);
      const replies = frames.map((frame) => {
        const reply = frame ? decodeReply(frame) : null;
        if (!reply || !('body' in reply)) {
          throw new InternalError('An item of the job expired before the job was assembled');
        }
        return reply;
      });
      const bodies = replies.map((reply) => reply.body);
      const t0 = performance.now();
      const result =
        output === 'single'
          ? bodies[0]
          : output === 'merged'
            ? await mergePdfs(bodies)
            : zipItems(
                // Jobs of older APIs carry no names: the index, with the extension of what the item made.
                // The extension is what the item made: page images are one image or a ZIP of
                // several, which only the PDF's page count tells.
                replies.map((reply, i) => ({
                  name: withExtension(job.data.itemNames?.[i] ?? String(i), extensionOf(reply.contentType)),
                  body: reply.body,
                })),
              );
      if (result.length > deps.maxResultBytes) {
        throw new PayloadTooLargeError(
          `The result (${result.length} bytes) is larger than MAX_RESULT_BYTES (${deps.maxResultBytes})`,
          { limit: deps.maxResultBytes, bytes: result.length, max_result_bytes: deps.maxResultBytes },
        );
      }
      deps.metrics?.batchItems.inc({ outcome: 'completed' }, total);
      // A single document is what its item made (a page image or a ZIP of several): the record says so.
      const single = output === 'single' ? replies[0].contentType : undefined;
      await finish(job, record, {
        result,
        // deliver_to.items PUTs each item from the ZIP: its name there and its type.
        ...(output === 'zip' && record.delivery_status === 'pending'
          ? {
              items: replies.map((reply, i) => ({
                name: withExtension(job.data.itemNames?.[i] ?? String(i), extensionOf(reply.contentType)),
                contentType: reply.contentType,
              })),
            }
          : {}),
        ...(single
          ? {
              contentType: single,
              ...(record.filename ? { filename: withExtension(record.filename, extensionOf(single)) } : {}),
            }
          : {}),
      });
      await cleanup();
      log.info(
        `job ${jobId} completed: ${total} item(s), ${output}, ${result.length} bytes (assembled in ${Math.round(performance.now() - t0)} ms)`,
      );
      return { bytes: result.length };
    } catch (e) {
      if (e instanceof UnrecoverableError) throw e;
      const typed = e instanceof TypedError;
      const final = typed || isFinalFailure(job, e as Error);
      log[typed ? 'info' : 'warn'](
        `job ${jobId}: assembling failed${final ? '' : ' (will retry)'}: ${String(e)}`,
      );
      if (!final) throw e;
      const error = (typed ? e : new InternalError('The job could not be assembled')).toBody();
      await finish(job, record, { error });
      await cleanup();
      throw new UnrecoverableError(JSON.stringify(error));
    }
  }

  /**
   * Writes the result and the record with RESULT_TTL_S, then queues the result's delivery
   * (deliver_to, which sends the webhook once it has finished) or else the webhook if one was asked for.
   */
  async function finish(
    job: AssembleJobHandle,
    record: Partial<AsyncJobRecord>,
    outcome:
      | { result: Buffer; contentType?: string; filename?: string; items?: ResultDeliveryJob['items'] }
      | { error: ErrorBody },
  ): Promise<void> {
    const { jobId } = job.data;
    const now = Date.now();
    const status = 'result' in outcome ? 'completed' : 'failed';
    await jobs.finish(jobId, outcome, now, deps.resultTtlS * 1000);
    deps.metrics?.asyncJobs.inc({ status });
    if (record.delivery_status === 'pending') {
      if ('result' in outcome) {
        // The job id makes a second run of this parent (after a crash) add no second delivery.
        const traceparent = currentTraceparent();
        await deps.deliveries.add({
          jobId,
          ...(outcome.items ? { items: outcome.items } : {}),
          // The delivery's span continues this job's trace.
          ...(traceparent ? { traceparent } : {}),
        });
        return;
      }
      const delivery = {
        status: 'failed',
        attempts: 0,
        last_error: 'the job failed: nothing to deliver',
      } as const;
      await jobs.noteDelivery(
        jobId,
        { delivery_status: delivery.status, delivery_attempts: '0', delivery_error: delivery.last_error },
        true,
      );
      await queueJobWebhook(deps.webhooks, jobId, record, { status, error: outcome.error, delivery }, now);
      return;
    }
    await queueJobWebhook(
      deps.webhooks,
      jobId,
      record,
      { status, ...('error' in outcome ? { error: outcome.error } : {}) },
      now,
    );
  }
}
