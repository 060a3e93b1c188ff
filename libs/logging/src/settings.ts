/** The log settings of the API and the workers: a settings group for the loader of libs/config. */
import { defineSettings, Setting } from '@app/config';

export const loggingSettings = defineSettings({
  variables: {
    LOG_LEVEL: Setting.oneOf(['error', 'warn', 'log', 'debug'] as const, { default: 'log' }),
    /**
     * `json` (one JSON object per line, for log collectors) or `pretty` (coloured, for a terminal;
     * needs the dev dependency pino-pretty). `npm start` chooses `pretty`.
     */
    LOG_FORMAT: Setting.oneOf(['json', 'pretty'] as const, { default: 'json' }),
  },
  slice: (v) => ({ level: v.LOG_LEVEL, format: v.LOG_FORMAT }),
});

export type LoggingSettings = ReturnType<typeof loggingSettings.slice>;
