/**
 * The worker's entry in the registry the API reads: a heartbeat while it can take jobs, and a
 * second entry while its converter is healthy (so the API's readiness can tell "no worker" from
 * "no working converter"), and the converter's kind and version. The alive file lets a container health check see the heartbeat.
 */
import {
  beat,
  converterHealthKey,
  converterInfoKey,
  type ConverterInfo,
  heartbeatKey,
  type QueueNames,
  type RedisConnection,
  unregister,
} from '@app/contracts';
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
  private readonly key: string;
  private readonly convertersKey: string;

  constructor(private readonly o: RegistrationOptions) {
    this.key = heartbeatKey(o.names);
    this.convertersKey = converterHealthKey(o.names);
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
    await unregister(this.o.redis, this.key, this.o.workerId).catch(() => undefined);
    await unregister(this.o.redis, this.convertersKey, this.o.workerId).catch(() => undefined);
  }

  private async beat(): Promise<void> {
    if (this.stopped) return;
    const { redis, workerId, ttlMs, converterHealth } = this.o;
    // Not awaited: a slow health check must not delay the heartbeat past its TTL. What is
    // published is the last finished check, at most one interval old.
    void converterHealth.refresh();
    try {
      await beat(redis, this.key, workerId, ttlMs);
      if (converterHealth.healthy) await beat(redis, this.convertersKey, workerId, ttlMs);
      else await unregister(redis, this.convertersKey, workerId);
      await redis.set(converterInfoKey(this.o.names), JSON.stringify(this.o.converterInfo), 'PX', ttlMs);
      touch(this.o.aliveFile);
    } catch (e) {
      this.o.onError(e);
    }
  }
}
