/**
 * The command line's settings: the groups of the libraries it runs, so that what renders here
 * renders through the service (the same limits, defaults, budgets and converter).
 */
import { loadSettings, type SettingsOf } from '@app/config';
import { limitSettings, requestDefaultSettings } from '@app/contracts';
import { conversionSettings, converterSettings } from '@app/converters';

export const CLI_SETTINGS = {
  limits: limitSettings,
  defaults: requestDefaultSettings,
  conversion: conversionSettings,
  converter: converterSettings,
};

export type CliSettings = SettingsOf<typeof CLI_SETTINGS>;

export function loadCliSettings(env: NodeJS.ProcessEnv = process.env): CliSettings {
  return loadSettings(CLI_SETTINGS, env);
}
