/**
 * A result's delivery (deliver_to), as a job of the `<QUEUE_NAME>-deliveries` queue: PUTs the
 * stored result (or, for deliver_to.items, each item taken from the result's ZIP) to the caller's
 * pre-signed URLs. BullMQ retries it (DELIVERY_RETRIES attempts, exponential backoff) on a network
 * error or an answer other than 2xx; items already delivered are not PUT again. A URL that no
 * longer passes the address check (DNS rebinding) is not retried. Once it has finished, either
 * way, the record says so, the targets (the only copy of their signatures) are deleted and the
 * webhook is queued. Logs and errors show URLs as host and path (shownUrl), never their query.
 */
import PizZip from 'pizzip';
import { type DeliveryView, type ParsedDeliverTo, putResult, shownUrl } from '@app/contracts';
import {
  JobRecordStore,
  type RedisConnection,
  type ResultDeliveryJobHandle,
  UnrecoverableError,
  type WebhookQueue,
} from '@app/queue';
import type { QueueNames } from '@app/contracts';
import type { Logger } from 'pino';
import type { WorkerMetrics } from '../worker-metrics';
import { withSpan } from '@app/telemetry';
import { queueJobWebhook } from './job-webhook';

export interface ResultDeliveryDeps {
  redis: RedisConnection;
  names: QueueNames;
  webhooks: WebhookQueue;
  timeoutMs: number;
  allowed: ReadonlySet<string>;
  logger: Logger;
  metrics?: WorkerMetrics;
}

export function createResultDeliveryProcessor(deps: ResultDeliveryDeps) {
  const jobs = new JobRecordStore(deps.redis, deps.names);
  return function deliverResult(job: ResultDeliveryJobHandle): Promise<{ delivered: number }> {
    // One span per attempt, in the submitting request's trace (no URL: its host is in the logs).
    return withSpan('delivery', () => deliverOnce(job), {
      kind: 'client',
      traceparent: job.data.traceparent,
      attributes: { 'job.id': job.data.jobId, 'delivery.attempt': job.attemptsMade + 1 },
    });
  };

  async function deliverOnce(job: ResultDeliveryJobHandle): Promise<{ delivered: number }> {
    const { jobId } = job.data;
    const log = deps.logger.child({ jobId });
    const attempt = job.attemptsMade + 1;
    const last = attempt >= (job.opts.attempts ?? 1);
    const record = await jobs.read(jobId);
    if (!record.created_at) {
      log.info(`delivery of job ${jobId}: its record is gone (cancelled or expired); nothing delivered`);
      return { delivered: 0 };
    }
    const ended = async (delivery: DeliveryView) => {
      await jobs.noteDelivery(
        jobId,
        {
          delivery_status: delivery.status,
          delivery_attempts: String(delivery.attempts),
          ...(delivery.last_error ? { delivery_error: delivery.last_error } : {}),
        },
        true,
      );
      await queueJobWebhook(deps.webhooks, jobId, record, { status: 'completed', delivery });
    };
    const [targetsJson, result] = await Promise.all([jobs.deliveryTargets(jobId), jobs.result(jobId)]);
    if (!targetsJson || !result) {
      const reason = 'the result or its delivery targets expired before delivery';
      await ended({ status: 'failed', attempts: attempt - 1, last_error: reason });
      throw new UnrecoverableError(reason);
    }
    const deliverTo = JSON.parse(targetsJson) as ParsedDeliverTo;
    const parts =
      deliverTo.mode === 'whole'
        ? [{ body: result, contentType: record.content_type ?? 'application/octet-stream' }]
        : itemsOf(result, job.data.items ?? []);
    let done = Number(record.delivery_done ?? 0);
    let failure: { reason: string; refused: boolean } | null = null;
    for (; done < parts.length; done++) {
      const target = deliverTo.targets[done];
      const field = deliverTo.mode === 'whole' ? 'deliver_to.url' : `deliver_to.items[${done}].url`;
      const outcome = await putResult({
        target,
        field,
        body: parts[done].body,
        contentType: parts[done].contentType,
        timeoutMs: deps.timeoutMs,
        allowed: deps.allowed,
      });
      const where = shownUrl(target.url);
      if (outcome.outcome === 'delivered') {
        log.info(
          `job ${jobId}: ${parts[done].body.length} bytes PUT to ${where} (attempt ${attempt}, ${outcome.status})`,
        );
        if (deliverTo.mode === 'items') await jobs.noteDelivery(jobId, { delivery_done: String(done + 1) });
        continue;
      }
      const reason = parts.length > 1 ? `item ${done}: ${outcome.reason}` : outcome.reason;
      failure = { reason, refused: outcome.outcome === 'refused' };
      log.warn(
        `job ${jobId}: PUT to ${where} ${failure.refused ? 'refused' : 'failed'} (attempt ${attempt}${last ? ', the last' : ''}): ${outcome.reason}`,
      );
      break;
    }
    const outcome = !failure ? 'delivered' : failure.refused ? 'refused' : last ? 'exhausted' : 'retried';
    deps.metrics?.resultDeliveries.inc({ outcome });
    if (!failure) {
      await ended({ status: 'delivered', attempts: attempt, last_error: record.delivery_error ?? null });
      log.info(
        `job ${jobId}: delivered (${parts.length} PUT${parts.length > 1 ? 's' : ''}, attempt ${attempt})`,
      );
      return { delivered: parts.length };
    }
    if (failure.refused || last) {
      await ended({ status: 'failed', attempts: attempt, last_error: failure.reason });
      throw new UnrecoverableError(failure.reason);
    }
    await jobs.noteDelivery(jobId, { delivery_attempts: String(attempt), delivery_error: failure.reason });
    throw new Error(failure.reason);
  }
}

/** Each item of a ZIP result, by the names the assembler gave them (ResultDeliveryJob.items). */
function itemsOf(zip: Buffer, items: Array<{ name: string; contentType: string }>) {
  const archive = new PizZip(zip);
  return items.map(({ name, contentType }) => {
    const file = archive.file(name);
    if (!file) throw new UnrecoverableError(`item ${name} is not in the result`);
    return { body: file.asNodeBuffer(), contentType };
  });
}
