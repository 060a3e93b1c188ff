/**
 * The API's settings: its own (listener, Bull Board, playground) and the groups of the libraries
 * it runs, loaded once in main.ts. The API converts nothing, so the converter's groups are not
 * read here (the worker and the command line read them).
 */
import { defineSettings, HOST_SETTING, loadSettings, Setting, type SettingsOf } from '@app/config';
import { limitSettings, requestDefaultSettings } from '@app/contracts';
import { loggingSettings } from '@app/logging';
import { jobSettings, queueSettings, redisSettings } from '@app/queue';
import { mcpSettings } from '@app/mcp';
import { storeSettings } from '@app/store';

export const httpSettings = defineSettings({
  variables: {
    /** HTTP port of the API. */
    PORT: Setting.integer({ minimum: 0, maximum: 65535, default: 8000 }),
    /** Address the API listens on. */
    HOST: HOST_SETTING,
    /** Bull Board login. The board is off unless both user and password are set. */
    BULL_BOARD_USER: Setting.optional(
      Setting.string({
        pattern: /^[^:]+$/,
        message: 'BULL_BOARD_USER may not contain a colon (HTTP basic auth)',
      }),
    ),
    BULL_BOARD_PASSWORD: Setting.optional(Setting.string()),
    /** `on`: the API serves the template playground at /playground; `off`: it answers 404. */
    PLAYGROUND: Setting.onOff({ default: 'on' }),
  },
  slice: (v) => ({
    port: v.PORT,
    host: v.HOST,
    /** Only with both credentials: never open to anyone. */
    board:
      v.BULL_BOARD_USER && v.BULL_BOARD_PASSWORD
        ? { user: v.BULL_BOARD_USER, password: v.BULL_BOARD_PASSWORD }
        : undefined,
    playground: v.PLAYGROUND === 'on',
  }),
});

export const API_SETTINGS = {
  http: httpSettings,
  redis: redisSettings,
  queue: queueSettings,
  jobs: jobSettings,
  limits: limitSettings,
  defaults: requestDefaultSettings,
  logging: loggingSettings,
  mcp: mcpSettings,
  store: storeSettings,
};

/**
 * The injection token of the loaded settings: an abstract class, so Nest injects it by type; the
 * interface of the same name gives it the loaded shape (nothing implements the class).
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export abstract class ApiSettings {}
// eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unsafe-declaration-merging
export interface ApiSettings extends SettingsOf<typeof API_SETTINGS> {}

export function loadApiSettings(env: NodeJS.ProcessEnv = process.env): ApiSettings {
  return loadSettings(API_SETTINGS, env);
}
