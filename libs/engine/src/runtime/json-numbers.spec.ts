import { evaluate, Frame } from './evaluator';
import { jinjaEnvironment } from './environment';
import { NATIVE_SOURCE_TEXT, parseDataJson, plainNumbers, stringifyDataJson } from './json-numbers';
import { DEFAULT_EVAL_LIMITS, RenderState } from './ops';
import { parseExpression } from '../syntax/parser';
import { PyFloat, str, type Dict } from './values';

const render = (src: string, data: unknown) =>
  str(
    evaluate(
      parseExpression(src),
      new Frame(),
      new RenderState(jinjaEnvironment(), data as Dict, new Set(), false, DEFAULT_EVAL_LIMITS),
    ),
  );

const DATA =
  '{"price": 9.0, "qty": 3, "rate": 1e2, "half": 2.50, "neg": -4.000, "xs": [1.0, 2, 3.5], "s": "9.0 1e2"}';

/** The reading this Node uses, and Node 20's fallback, which every Node can run. */
const READINGS: [string, boolean][] = [['fallback (Node 20)', false]];
if (NATIVE_SOURCE_TEXT) READINGS.push(['native (Node ≥ 21: context.source, JSON.rawJSON)', true]);

describe('template data: numbers as the data wrote them (issue 23)', () => {
  it('this Node reads source text natively exactly when it is Node 21 or later', () => {
    expect(NATIVE_SOURCE_TEXT).toBe(Number(process.versions.node.split('.')[0]) >= 21);
  });

  describe.each(READINGS)('%s', (_name, native) => {
    const data = parseDataJson(DATA, native) as Dict;

    it('keeps integral floats floats, ints ints, strings strings', () => {
      expect(data.price).toEqual(new PyFloat(9));
      expect(data.rate).toEqual(new PyFloat(100));
      expect(data.neg).toEqual(new PyFloat(-4));
      expect(data.qty).toBe(3);
      expect(data.half).toBe(2.5);
      expect(data.xs).toEqual([new PyFloat(1), 2, 3.5]);
      expect(data.s).toBe('9.0 1e2');
    });

    it.each([
      ['price', '9.0'],
      ['rate', '100.0'],
      ['price * qty', '27.0'],
      ['price + 1', '10.0'],
      ['price // 2', '4.0'],
      ['price > 8 and price == 9', 'True'],
      ['price|round', '9.0'],
      ['price|int', '9'],
      ['"%.2f"|format(price)', '9.00'],
      ['"%s"|format(price)', '9.0'],
      ['xs|sum', '6.5'],
      ['[price, qty]|max', '9.0'],
      ['price|string ~ "!"', '9.0!'],
    ])('{{ %s }} prints %j, as Jinja does', (src, want) => {
      expect(render(src, data)).toBe(want);
    });

    it('crosses the queue as written: stringify then parse gives the same values', () => {
      const text = stringifyDataJson({ template_data: data }, native);
      expect(text).toContain('"price":9.0');
      expect(text).toContain('"rate":100.0');
      expect(parseDataJson(text, native)).toEqual({ template_data: data });
    });

    it('keeps integers of 21 digits and more integers across the queue, as Python reads them', () => {
      const big = parseDataJson(
        '{"n": 1234567890123456789012345678901234567890, "f": 1e308}',
        native,
      ) as Dict;
      expect(typeof big.n).toBe('number');
      expect(big.f).toEqual(new PyFloat(1e308));
      const back = parseDataJson(stringifyDataJson(big, native), native) as Dict;
      expect(back).toEqual(big);
      expect(render('n', back)).toMatch(/^\d{40}$/);
      expect(render('f', back)).toBe('1e+308');
    });

    it('gives JSON.parse’s values otherwise: last duplicate wins, __proto__ stays an own key', () => {
      const v = parseDataJson('{"a": 1.0, "a": 2.0, "__proto__": {"x": 1.0}}', native) as Dict;
      expect(v.a).toEqual(new PyFloat(2));
      expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
      expect(Object.prototype.hasOwnProperty.call(v, '__proto__')).toBe(true);
      expect(({} as Dict).x).toBeUndefined();
    });

    it('reports JSON.parse’s own error for bad JSON', () => {
      const bad = '{"a": 1.0, "b": }';
      expect(() => parseDataJson(bad, native)).toThrow(
        (() => {
          try {
            JSON.parse(bad);
          } catch (e) {
            return (e as Error).message;
          }
          return 'unreachable';
        })(),
      );
    });
  });

  it('fallback: data holding U+FDD2 is read with plain JSON.parse (no string becomes a number)', () => {
    const v = parseDataJson('{"t": "\\uFDD29.0", "f": 9.0}', false) as Dict;
    expect(v).toEqual({ t: '\uFDD29.0', f: 9 });
    const w = stringifyDataJson({ t: '\uFDD21.0', f: new PyFloat(2) }, false);
    expect(JSON.parse(w)).toEqual({ t: '\uFDD21.0', f: 2 });
  });

  it('plainNumbers turns PyFloats back into numbers (image sizes, options)', () => {
    expect(plainNumbers({ logo: { width_mm: new PyFloat(50), data: 'x' }, l: [new PyFloat(1)] })).toEqual({
      logo: { width_mm: 50, data: 'x' },
      l: [1],
    });
  });
});
