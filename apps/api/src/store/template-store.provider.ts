/**
 * The API's handle on the template store (libs/store): migrations at start, the admin key of
 * `npm start` (ADMIN_KEY_FILE) stored once, and 503 with Retry-After whenever PostgreSQL is not
 * there. Rendering from an uploaded file never touches it, so it keeps working while PostgreSQL
 * is down.
 */
import { readFileSync } from 'node:fs';
import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { Gauge, Registry } from 'prom-client';
import { ServiceUnavailableError } from '@app/contracts';
import { TemplateStore } from '@app/store';
import { ApiSettings } from '../config/settings';

@Injectable()
export class TemplateStoreProvider implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('TemplateStore');
  private readonly store?: TemplateStore;
  private migrated?: Promise<void>;

  constructor(
    private readonly settings: ApiSettings,
    registry: Registry,
  ) {
    const { url } = settings.store;
    if (url) this.store = new TemplateStore({ ...settings.store, url }, settings.queue.retryAfterSeconds);
    const store = this.store;
    if (store) {
      new Gauge({
        name: 'docgen_database_up',
        help: '1 when PostgreSQL of the stored templates answers, read on scrape (absent without DATABASE_URL)',
        registers: [registry],
        async collect() {
          this.set((await store.ping()) ? 1 : 0);
        },
      });
    }
  }

  get configured(): boolean {
    return this.store !== undefined;
  }

  onModuleInit(): void {
    // Not awaited: the API starts (and renders uploads) with PostgreSQL down; by-id requests then
    // answer 503 and try the migrations again.
    if (this.store)
      this.ready().catch((e: Error) => this.logger.warn(`template store not ready: ${e.message}`));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.store?.close().catch(() => undefined);
  }

  /** The store, migrated; 503 while PostgreSQL is unreachable or not configured. */
  async get(): Promise<TemplateStore> {
    if (!this.store) {
      throw new ServiceUnavailableError(
        'Stored templates need PostgreSQL: set DATABASE_URL (npm start starts one)',
        this.settings.queue.retryAfterSeconds,
        { reason: 'database_not_configured' },
      );
    }
    await this.ready();
    return this.store;
  }

  /** Whether PostgreSQL answers (readiness and /metrics); undefined when none is configured. */
  async up(): Promise<boolean | undefined> {
    return this.store ? this.store.ping() : undefined;
  }

  private ready(): Promise<void> {
    this.migrated ??= this.migrateAndBootstrap().catch((e: unknown) => {
      this.migrated = undefined; // try again on the next request
      throw e;
    });
    return this.migrated;
  }

  private async migrateAndBootstrap(): Promise<void> {
    const store = this.store!;
    const ran = await store.migrate();
    if (ran.length) this.logger.log(`template store migrated: ${ran.join(', ')}`);
    const file = this.settings.store.adminKeyFile;
    if (!file) return;
    let key: string;
    try {
      key = readFileSync(file, 'utf8').trim();
    } catch (e) {
      // A missing or unreadable file costs the admin key, not the store.
      this.logger.error(`ADMIN_KEY_FILE ${file} cannot be read: ${(e as Error).message}`);
      return;
    }
    if (!(await store.findKey(key))) {
      await store.createKey(key, 'default', ['admin']);
      this.logger.log(`admin key of ${file} stored (namespace default)`);
    }
  }
}
