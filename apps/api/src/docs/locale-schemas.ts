/** OpenAPI of the formatting filters' request defaults (issue 25; docs/formatting.md). */
import type { SchemaObject } from '@nestjs/swagger';

const LOCALE: SchemaObject = {
  type: 'string',
  example: 'de_DE',
  description:
    "Default locale of format_date, format_currency and the other formatting filters: Babel's `de_DE` or BCP 47's `de-DE` " +
    '(default: DEFAULT_LOCALE, `en_US`). An unknown locale: 400 invalid_request_structure naming the field.',
};
const TIMEZONE: SchemaObject = {
  type: 'string',
  example: 'Europe/Berlin',
  description:
    'IANA time zone format_datetime and format_time show times in (default: DEFAULT_TIMEZONE, `UTC`). ' +
    'An unknown zone: 400 invalid_request_structure naming the field.',
};

/** `request_data.options.locale` / `.timezone` (enhanced mode). */
export const LOCALE_OPTION_PROPERTIES: Record<string, SchemaObject> = { locale: LOCALE, timezone: TIMEZONE };

/** The form fields `locale` / `timezone` beside `data` (legacy and v1.6 modes). */
export const LOCALE_FORM_PROPERTIES: Record<string, SchemaObject> = {
  locale: { ...LOCALE, description: `Legacy and v1.6 forms (with \`data\`). ${LOCALE.description}` },
  timezone: { ...TIMEZONE, description: `Legacy and v1.6 forms (with \`data\`). ${TIMEZONE.description}` },
};
