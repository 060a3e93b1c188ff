/**
 * The formatting filters' request defaults (issue 25): `options.locale` / `options.timezone` in
 * `request_data` (enhanced mode), or the form fields `locale` / `timezone` beside `data` (legacy
 * and v1.6 modes). Checked here, before queueing: an unknown one is a 400 naming its field.
 * Their shape is in RenderOptionsSchema and RenderFormSchema. Which names exist is the engine's
 * knowledge (its locale data): the parser is handed the engine's formatDefaultsOf as
 * FormatDefaultsCheck, by the API and the CLI alike; without one the text passes as sent.
 */
import { LOCALE_FORM_PROPERTIES } from '../payload/render-request';
import { InvalidRequestError } from '../request-errors';

/** The engine's formatDefaultsOf: canonical locale and zone, or a typed error naming the field. */
export type FormatDefaultsCheck = (
  raw: { locale?: unknown; timezone?: unknown },
  fields: { locale: string; timezone: string },
) => { locale: string; timezone: string };

/** The form fields `locale` and `timezone`, from the form's schema. */
export const LOCALE_FORM_FIELDS = Object.keys(
  LOCALE_FORM_PROPERTIES,
) as (keyof typeof LOCALE_FORM_PROPERTIES)[];

export interface LocaleOptions {
  /** Canonical BCP 47 tag (`de-DE`), or absent for the service's DEFAULT_LOCALE. */
  locale?: string;
  /** IANA zone name, or absent for DEFAULT_TIMEZONE. */
  timezone?: string;
}

function checked(
  raw: { locale?: unknown; timezone?: unknown },
  fields: { locale: string; timezone: string },
  formatDefaults?: FormatDefaultsCheck,
): LocaleOptions {
  for (const key of LOCALE_FORM_FIELDS) {
    const v = raw[key];
    if (v !== undefined && typeof v !== 'string')
      throw new InvalidRequestError(`${fields[key]} must be text, such as "de_DE" or "Europe/Berlin"`, {
        field: fields[key],
      });
  }
  const resolved = formatDefaults
    ? formatDefaults(raw, fields)
    : (raw as { locale?: string; timezone?: string });
  const out: LocaleOptions = {};
  if (raw.locale !== undefined) out.locale = resolved.locale!;
  if (raw.timezone !== undefined) out.timezone = resolved.timezone!;
  return out;
}

/** `options.locale` / `options.timezone` of request_data; null counts as absent. */
export function localeFromOptions(
  options: Record<string, unknown> | undefined,
  formatDefaults?: FormatDefaultsCheck,
): LocaleOptions {
  if (!options) return {};
  const own = (k: string) =>
    Object.prototype.hasOwnProperty.call(options, k) && options[k] !== null ? options[k] : undefined;
  return checked(
    { locale: own('locale'), timezone: own('timezone') },
    { locale: 'options.locale', timezone: 'options.timezone' },
    formatDefaults,
  );
}

/** The form fields `locale` / `timezone` (legacy and v1.6 modes); an empty field is absent. */
export function localeFromForm(
  form: Record<string, unknown>,
  formatDefaults?: FormatDefaultsCheck,
): LocaleOptions {
  const text = (k: string): unknown => {
    const v = form[k];
    if (v === undefined) return undefined;
    if (typeof v !== 'string')
      throw new InvalidRequestError(`The form field '${k}' must be sent once, as text`, { field: k });
    return v.trim() === '' ? undefined : v.trim();
  };
  return checked(
    { locale: text('locale'), timezone: text('timezone') },
    { locale: 'locale', timezone: 'timezone' },
    formatDefaults,
  );
}

/** `request_data` carries its own options: the form fields beside it would be a second answer. */
export function refuseLocaleFormFields(form: Record<string, unknown>): void {
  const sent = LOCALE_FORM_FIELDS.filter((k) => form[k] !== undefined);
  if (sent.length)
    throw new InvalidRequestError(
      `With 'request_data', send the locale and time zone as request_data.options.${sent[0]}, not as the form field '${sent[0]}'`,
      { fields: sent },
    );
}
