/**
 * The converter's health as the worker publishes it: refreshed with each heartbeat (never more
 * than one check in flight), bounded by a timeout because a hung converter must not hang the
 * heartbeat, and logged when it flips.
 */
import type { ConverterHealth, PdfConverter } from '@app/converters';
import type { Logger } from 'pino';

/** converter.health() has its own timeouts; this bounds a call that hangs anyway. */
const HEALTH_CHECK_TIMEOUT_MS = 10_000;

export class ConverterHealthMonitor {
  private current: ConverterHealth | undefined;
  private checking: Promise<void> | undefined;

  constructor(
    private readonly converter: PdfConverter,
    private readonly logger: Logger,
  ) {}

  /** The last finished check (undefined before the first). */
  get health(): ConverterHealth | undefined {
    return this.current;
  }

  get healthy(): boolean {
    return this.current?.healthy === true;
  }

  /** Starts a check unless one is running; resolves when it is done. */
  refresh(): Promise<void> {
    return (this.checking ??= this.check().finally(() => (this.checking = undefined)));
  }

  /**
   * Waits until the converter has an instance ready, or `timeoutMs` passes: the worker registers
   * only then, so the first job does not wait for LibreOffice to start.
   */
  async warmUp(timeoutMs: number): Promise<ConverterHealth | undefined> {
    const deadline = Date.now() + timeoutMs;
    let health: ConverterHealth | undefined;
    while (Date.now() < deadline) {
      health = await this.converter.health().catch(() => undefined);
      if (health?.healthy && health.ready > 0) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    this.current = health;
    return health;
  }

  private async check(): Promise<void> {
    const { converter } = this;
    const down = (detail: string): ConverterHealth => ({
      healthy: false,
      instances: converter.capacity,
      ready: 0,
      detail,
    });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<ConverterHealth>((resolve) => {
      timer = setTimeout(() => resolve(down('health check timed out')), HEALTH_CHECK_TIMEOUT_MS);
    });
    const health = await Promise.race([converter.health().catch((e: unknown) => down(String(e))), timeout]);
    clearTimeout(timer);
    if (this.current?.healthy !== health.healthy) {
      this.logger[health.healthy ? 'info' : 'warn'](
        { converterHealth: health },
        `converter ${health.healthy ? 'healthy' : 'unhealthy'}`,
      );
    }
    this.current = health;
  }
}
