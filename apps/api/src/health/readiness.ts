/**
 * Readiness of the whole render path as seen from the API: Redis reachable, at least one worker
 * alive, and at least one worker whose converter reported healthy with its heartbeat. Kept free
 * of NestJS so the decision is tested directly.
 */
import type { QueueProbe } from '../queue/render-queue.service';
import type { Check, CheckName, ReadinessBody } from './health.openapi';

export type { ReadinessBody } from './health.openapi';

/** `database`: PostgreSQL answered (true), did not (false), or none is configured (undefined). */
export function readiness(probe: QueueProbe, database?: boolean): ReadinessBody {
  const checks: Record<CheckName, Check> = {
    api: probe.closing ? { status: 'down', reason: 'shutting down' } : { status: 'up' },
    // A closing API does not ask Redis any more.
    redis: probe.redis ? { status: 'up' } : probe.closing ? { status: 'unknown' } : { status: 'down' },
    workers: { status: 'unknown' },
    converter: { status: 'unknown' },
  };
  if (probe.redis) {
    const live = probe.liveWorkers ?? 0;
    const healthy = probe.healthyConverters ?? 0;
    checks.workers = { status: live > 0 ? 'up' : 'down', live };
    // Without a worker there is no converter to judge: report it unknown rather than a second failure.
    checks.converter =
      live > 0 ? { status: healthy > 0 ? 'up' : 'down', healthy_workers: healthy } : { status: 'unknown' };
  }
  const failed = (Object.keys(checks) as CheckName[]).filter((k) => checks[k].status === 'down');
  const ready = failed.length === 0 && checks.workers.status === 'up' && checks.converter.status === 'up';
  // Beside the checks, not among them: stored templates being away fails only requests by id.
  const withDatabase =
    database === undefined
      ? checks
      : {
          ...checks,
          database: database
            ? { status: 'up' as const }
            : { status: 'down' as const, reason: 'by-id requests answer 503' },
        };
  return { status: ready ? 'ok' : 'error', failed, checks: withDatabase };
}
