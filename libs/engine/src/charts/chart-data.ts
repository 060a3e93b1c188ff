/**
 * The data a chart is filled with, checked: `{categories, series: [{name, values, x?}], title?,
 * x_title?, y_title?, number_format?}` as the template data gives it. Anything else is a
 * ChartDataError naming the chart, the series and the index; too many points are refused
 * before any work (countChartPoints, over the whole request).
 */
import { ChartDataError, PayloadTooLargeError } from '../errors';
import { getOwn, isDict, isNumber, num, str, Undefined, type Dict, type Value } from '../runtime/values';

export interface ChartSeries {
  name: string;
  /** null: no value at that point (a gap). */
  values: Array<number | null>;
  /** Scatter charts: each point's x. */
  x?: number[];
}

export interface ChartData {
  categories: string[];
  /** All categories are numbers (a scatter chart without `x` uses them as x). */
  numericCategories: number[] | null;
  series: ChartSeries[];
  title?: string;
  xTitle?: string;
  yTitle?: string;
  numberFormat?: string;
}

export interface ChartLimits {
  /** Points (values) in one chart. */
  maxChartPoints: number;
  /** Points in all the request's charts together. */
  maxRequestChartPoints: number;
}

export const DEFAULT_CHART_LIMITS: ChartLimits = { maxChartPoints: 10_000, maxRequestChartPoints: 100_000 };

const KNOWN_KEYS = new Set(['categories', 'series', 'title', 'x_title', 'y_title', 'number_format']);

function optionalText(d: Dict, key: string, chart: string): string | undefined {
  const v = getOwn(d, key);
  if (v === undefined || v === null || v instanceof Undefined) return undefined;
  if (typeof v !== 'string' && !isNumber(v))
    throw new ChartDataError(`${key} must be text`, { chart, field: key });
  return str(v);
}

function list(v: Value | undefined): Value[] | undefined {
  return Array.isArray(v) ? v : undefined;
}

/** The value at `chart(…)` as chart data, or a ChartDataError saying what is wrong and where. */
export function parseChartData(
  v: Value,
  chart: string,
  limits: ChartLimits = DEFAULT_CHART_LIMITS,
): ChartData {
  if (!isDict(v))
    throw new ChartDataError(
      `expects chart data {"categories": [...], "series": [{"name": ..., "values": [...]}]}, got ${v instanceof Undefined ? 'an undefined value' : typeof v === 'string' ? 'text' : Array.isArray(v) ? 'a list' : 'a value that is not chart data'}`,
      { chart },
    );
  const unknown = Object.keys(v).filter((k) => !KNOWN_KEYS.has(k));
  if (unknown.length)
    throw new ChartDataError(`unknown key${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}`, {
      chart,
      field: unknown[0],
    });
  const rawSeries = list(getOwn(v, 'series'));
  if (!rawSeries || !rawSeries.length)
    throw new ChartDataError('series must be a non-empty list', { chart, field: 'series' });
  const rawCategories = getOwn(v, 'categories');
  const categoryList = rawCategories === undefined || rawCategories === null ? [] : list(rawCategories);
  if (!categoryList) throw new ChartDataError('categories must be a list', { chart, field: 'categories' });
  const categories = categoryList.map((c, i) => {
    if (typeof c !== 'string' && !isNumber(c))
      throw new ChartDataError(`category ${i} must be text or a number`, {
        chart,
        index: i,
        field: 'categories',
      });
    return str(c);
  });
  const numericCategories =
    categoryList.length && categoryList.every((c) => isNumber(c))
      ? categoryList.map((c) => num(c as number))
      : null;
  let points = 0;
  const series = rawSeries.map((s, si): ChartSeries => {
    if (!isDict(s))
      throw new ChartDataError(`series ${si} must be an object {"name": ..., "values": [...]}`, {
        chart,
        series: si,
      });
    const nameValue = getOwn(s, 'name');
    const name = nameValue === undefined || nameValue === null ? `Series ${si + 1}` : str(nameValue);
    const at = { chart, series: si, series_name: name };
    const values = list(getOwn(s, 'values'));
    if (!values)
      throw new ChartDataError(`series ${si} ('${name}') has no values list`, { ...at, field: 'values' });
    const nums = values.map((x, i) => {
      if (x === null) return null;
      if (!isNumber(x))
        throw new ChartDataError(
          `series ${si} ('${name}') value ${i} is not a number: ${JSON.stringify(typeof x === 'string' ? x : str(x)).slice(0, 60)}`,
          { ...at, index: i, field: 'values' },
        );
      const n = num(x);
      if (!Number.isFinite(n))
        throw new ChartDataError(`series ${si} ('${name}') value ${i} is not a finite number`, {
          ...at,
          index: i,
          field: 'values',
        });
      return n;
    });
    const rawX = getOwn(s, 'x');
    let x: number[] | undefined;
    if (rawX !== undefined && rawX !== null) {
      const xs = list(rawX);
      if (!xs) throw new ChartDataError(`series ${si} ('${name}') x must be a list`, { ...at, field: 'x' });
      x = xs.map((xv, i) => {
        if (!isNumber(xv))
          throw new ChartDataError(`series ${si} ('${name}') x ${i} is not a number`, {
            ...at,
            index: i,
            field: 'x',
          });
        return num(xv);
      });
      if (x.length !== nums.length)
        throw new ChartDataError(
          `series ${si} ('${name}') has ${nums.length} values but ${x.length} x values`,
          { ...at, index: Math.min(x.length, nums.length), field: 'x' },
        );
    } else if (categories.length !== nums.length) {
      throw new ChartDataError(
        `series ${si} ('${name}') has ${nums.length} values for ${categories.length} categories`,
        { ...at, index: Math.min(categories.length, nums.length), field: 'values' },
      );
    }
    points += nums.length;
    return { name, values: nums, ...(x ? { x } : {}) };
  });
  if (points > limits.maxChartPoints)
    throw new PayloadTooLargeError(
      `Chart '${chart}' has ${points} points; at most ${limits.maxChartPoints} (MAX_CHART_POINTS)`,
      { chart, points, limit: limits.maxChartPoints },
    );
  return {
    categories,
    numericCategories,
    series,
    title: optionalText(v, 'title', chart),
    xTitle: optionalText(v, 'x_title', chart),
    yTitle: optionalText(v, 'y_title', chart),
    numberFormat: optionalText(v, 'number_format', chart),
  };
}

/** Looks like chart data: an object with a `series` list of objects with `values` lists. */
function chartLike(v: unknown): v is { series: Array<{ values: unknown[] }> } {
  if (!isDict(v as Value)) return false;
  const s = (v as Dict).series;
  return Array.isArray(s) && s.every((x) => isDict(x) && Array.isArray(getOwn(x, 'values')));
}

/**
 * MAX_CHART_POINTS before any work: every chart-like object in the template data (by shape, as
 * which ones a template binds is known only while it fills) counted, per chart and together.
 * 413 naming the JSON path of the first too large, or the total.
 */
export function countChartPoints(data: unknown, limits: ChartLimits = DEFAULT_CHART_LIMITS): number {
  let total = 0;
  // Iterative: the data's depth is bounded by the parser, but a stack costs nothing here.
  const stack: Array<[unknown, string]> = [[data, 'template_data']];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (Array.isArray(v)) {
      v.forEach((x, i) => stack.push([x, `${path}[${i}]`]));
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (chartLike(v)) {
      const points = v.series.reduce((n, s) => n + s.values.length, 0);
      if (points > limits.maxChartPoints)
        throw new PayloadTooLargeError(
          `${path} has ${points} chart points; at most ${limits.maxChartPoints} per chart (MAX_CHART_POINTS)`,
          { field: path, points, limit: limits.maxChartPoints },
        );
      total += points;
      if (total > limits.maxRequestChartPoints)
        throw new PayloadTooLargeError(
          `The request's charts have more than ${limits.maxRequestChartPoints} points together (MAX_CHART_POINTS_PER_REQUEST)`,
          { field: 'template_data', points: total, limit: limits.maxRequestChartPoints },
        );
      continue;
    }
    for (const [k, x] of Object.entries(v)) stack.push([x, `${path}.${k}`]);
  }
  return total;
}
