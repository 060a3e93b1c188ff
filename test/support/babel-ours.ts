/** Our filters' answer to a Babel differential case (the functions behind the filters, no document). */
// The engine's private formatters, the part the Babel differential compares (no public export).
/* eslint-disable no-restricted-imports */
import { formatDate, formatDatetime, formatTime } from '../../libs/engine/src/format/dates';
import { parseLocale } from '../../libs/engine/src/format/locale';
import { formatCurrency, formatDecimal, formatPercent } from '../../libs/engine/src/format/numbers';
/* eslint-enable no-restricted-imports */
import type { BabelCase } from './babel-cases';

export function ourAnswer(c: BabelCase): string {
  const locale = parseLocale(c.kwargs.locale)!;
  const tz = c.kwargs.tzinfo ?? 'UTC';
  const flags = { decimalQuantization: true, groupSeparator: true };
  try {
    switch (c.fn) {
      case 'format_date':
        return formatDate(c.value, c.args[0], locale);
      case 'format_datetime':
        return formatDatetime(c.value, c.args[0], tz, locale);
      case 'format_time':
        return formatTime(c.value, c.args[0], tz, locale);
      case 'format_decimal':
        return formatDecimal(c.value, c.args[0], locale, flags);
      case 'format_currency':
        return formatCurrency(c.value, c.args[0], c.args[1] ?? null, locale, {
          ...flags,
          currencyDigits: true,
          formatType: 'standard',
        });
      case 'format_percent':
        return formatPercent(c.value, c.args[0], locale, flags);
    }
  } catch (e) {
    return `ERR ${(e as Error).message}`;
  }
}
