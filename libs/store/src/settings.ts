/**
 * Where the template store's PostgreSQL is (libs/store), as a settings group for libs/config.
 * Read by the API and the workers.
 */
import { defineSettings, Setting } from '@app/config';

export const storeSettings = defineSettings({
  variables: {
    /** PostgreSQL of the stored templates and the API keys. `npm start` starts its own when unset. */
    DATABASE_URL: Setting.optional(
      Setting.string({
        pattern: /^postgres(ql)?:\/\/.+/,
        message: 'DATABASE_URL must be a postgres:// or postgresql:// URL',
      }),
    ),
    /**
     * `true`: the specification's endpoints (render, jobs, batches, lint, inspect) also need an API
     * key with the scope `render`. The template routes always need one.
     */
    REQUIRE_API_KEY: Setting.oneOf(['true', 'false'] as const, { default: 'false' }),
    /**
     * A file holding an admin key (npm start's .admin-key): at start the API stores its hash with
     * the scope `admin` in the namespace `default`, once.
     */
    ADMIN_KEY_FILE: Setting.optional(Setting.string()),
    /** Connections each process keeps to PostgreSQL. */
    DATABASE_POOL_SIZE: Setting.integer({ minimum: 1, default: 5 }),
    /** A query (or a connection attempt) that takes longer fails, and a by-id request answers 503. */
    DATABASE_TIMEOUT_MS: Setting.integer({ minimum: 100, default: 5_000 }),
  },
  slice: (v) => ({
    url: v.DATABASE_URL,
    poolSize: v.DATABASE_POOL_SIZE,
    timeoutMs: v.DATABASE_TIMEOUT_MS,
    requireApiKey: v.REQUIRE_API_KEY === 'true',
    adminKeyFile: v.ADMIN_KEY_FILE,
  }),
});

export type StoreSettings = ReturnType<typeof storeSettings.slice>;
