/**
 * One webhook delivery attempt, as a job of the `<QUEUE_NAME>-webhooks` queue: BullMQ retries it
 * (WEBHOOK_RETRIES attempts, exponential backoff) on a network error or an answer other than 2xx.
 * Every attempt carries the same webhook-id and body, signed again with its own timestamp. A URL
 * that no longer passes the address check (DNS rebinding) is not retried.
 */
import { deliverWebhook } from '@app/contracts';
import { UnrecoverableError, type WebhookJobHandle } from '@app/queue';
import type { Logger } from 'pino';
import type { WorkerMetrics } from '../worker-metrics';
import { type SpanHandle, withSpan } from '@app/telemetry';

export interface WebhookDeps {
  secret: string;
  timeoutMs: number;
  allowed: ReadonlySet<string>;
  logger: Logger;
  metrics?: WorkerMetrics;
}

export function createWebhookProcessor(deps: WebhookDeps) {
  return function deliver(job: WebhookJobHandle): Promise<{ status: number }> {
    // The URL's host only, in the span as in the log lines.
    return withSpan('webhook', (span) => deliverOnce(job, span), {
      kind: 'client',
      traceparent: job.data.traceparent,
      attributes: {
        'job.id': job.data.jobId,
        'server.address': hostOf(job.data.url),
        'webhook.attempt': job.attemptsMade + 1,
      },
    });
  };

  async function deliverOnce(job: WebhookJobHandle, span: SpanHandle): Promise<{ status: number }> {
    const { jobId, url, webhookId, body } = job.data;
    const log = deps.logger.child({ jobId, webhookId });
    const attempt = job.attemptsMade + 1;
    const result = await deliverWebhook({
      url,
      id: webhookId,
      body,
      secret: deps.secret,
      timeoutMs: deps.timeoutMs,
      allowed: deps.allowed,
    });
    // The URL's host only: its path and query may carry the receiver's own tokens.
    const host = new URL(url).host;
    if (result.outcome === 'delivered') {
      deps.metrics?.webhookDeliveries.inc({ outcome: 'delivered' });
      span.setAttributes({ 'http.response.status_code': result.status });
      log.info(`webhook of job ${jobId} delivered to ${host} (attempt ${attempt}, ${result.status})`);
      return { status: result.status };
    }
    if (result.outcome === 'refused') {
      deps.metrics?.webhookDeliveries.inc({ outcome: 'refused' });
      span.fail('webhook_refused');
      log.warn(`webhook of job ${jobId} refused: ${result.reason}`);
      throw new UnrecoverableError(result.reason);
    }
    const last = attempt >= (job.opts.attempts ?? 1);
    deps.metrics?.webhookDeliveries.inc({ outcome: last ? 'exhausted' : 'retried' });
    span.fail('webhook_failed');
    log.warn(
      `webhook of job ${jobId} to ${host} failed (attempt ${attempt}${last ? ', the last' : ''}): ${result.reason}`,
    );
    throw new Error(result.reason);
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}
