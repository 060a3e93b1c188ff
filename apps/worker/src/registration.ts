/**
 * The worker's entry in the registry the API reads: a heartbeat while it can take jobs, and a
 * second entry while its converter is healthy (so the API's readiness can tell "no worker" from
 * "no working converter"), and the converter's kind and version; libs/queue's WorkerRegistry keeps
 * them in Redis. The alive file lets a container health check see the heartbeat.
 */
import type { ConverterInfo, QueueNames } from '@app/contracts';
import { type RedisConnection, WorkerRegistry } from '@app/queue';
import { closeSync, openSync, utimesSync } from 'node:fs';
import type { ConverterHealthMonitor } from './converter-health';

export interface RegistrationOptions {
  redis: RedisConnection;
  names: QueueNames;
  workerId: string;
  ttlMs: number;
  intervalMs: number;
  aliveFile: string;
  converterHealth: ConverterHealthMonitor;
  /** Which converter and version, published with each heartbeat for the API's GET /version. */
  converterInfo: ConverterInfo;
  onError: (e: unknown) => void;
}

function touch(file: string): void {
  try {
    const now = new Date();
    utimesSync(file, now, now);
  } catch {
    try {
      closeSync(openSync(file, 'a'));
    } catch {
      // the alive file is optional
    }
  }
}

export class WorkerRegistration {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly registry: WorkerRegistry;

  constructor(private readonly o: RegistrationOptions) {
    this.registry = new WorkerRegistry(o.redis, o.names);
  }

  /** Registers now, then refreshes every interval. */
  async start(): Promise<void> {
    this.timer ??= setInterval(() => void this.beat(), this.o.intervalMs);
    await this.beat();
  }

  /** Leaves both registries at once (graceful shutdown), so the API stops counting this worker. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.registry.leave(this.o.workerId);
  }

  private async beat(): Promise<void> {
    if (this.stopped) return;
    const { workerId, ttlMs, converterHealth } = this.o;
    // Not awaited: a slow health check must not delay the heartbeat past its TTL. What is
    // published is the last finished check, at most one interval old.
    void converterHealth.refresh();
    try {
      await this.registry.beat(workerId, ttlMs, {
        healthy: converterHealth.healthy,
        info: this.o.converterInfo,
      });
      touch(this.o.aliveFile);
    } catch (e) {
      this.o.onError(e);
    }
  }
}
