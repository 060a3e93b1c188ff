/**
 * The webhook of a finished job, queued once: by the assembler, or (with deliver_to) by the
 * result delivery once it has finished, so that the webhook says how the delivery went.
 */
import {
  type AsyncJobRecord,
  type DeliveryView,
  type ErrorBody,
  jobPaths,
  type WebhookEvent,
} from '@app/contracts';
import type { WebhookQueue } from '@app/queue';
import { currentTraceparent } from '@app/telemetry';

export async function queueJobWebhook(
  webhooks: WebhookQueue,
  jobId: string,
  record: Partial<AsyncJobRecord>,
  outcome: { status: 'completed' | 'failed'; error?: ErrorBody; delivery?: DeliveryView },
  now = Date.now(),
): Promise<void> {
  if (!record.webhook_url) return;
  const event: WebhookEvent = {
    type: outcome.status === 'completed' ? 'job.completed' : 'job.failed',
    timestamp: new Date(now).toISOString(),
    data: {
      job_id: jobId,
      status: outcome.status,
      result_url: `${record.base_url}${jobPaths(jobId).result}`,
      ...(outcome.error ? { error: outcome.error } : {}),
      ...(outcome.delivery ? { delivery: outcome.delivery } : {}),
    },
  };
  const traceparent = currentTraceparent();
  // The job id makes a second run (after a crash) add no second delivery.
  await webhooks.add({
    jobId,
    url: record.webhook_url,
    webhookId: `msg_${jobId}`,
    body: JSON.stringify(event),
    // The webhook's span continues the job's trace.
    ...(traceparent ? { traceparent } : {}),
  });
}
