/**
 * Python as the oracle of the runtime's unit specs (which run without Python): the expected
 * strings of test/support/expression-cases.ts are what Jinja2 prints, and our reading of JSON
 * numbers (float or int) is Python's json's. Runs /usr/bin/python3, where python3-docxtpl
 * installs Jinja2 (a pyenv python3 first on PATH lacks it).
 */
import { spawnSync } from 'node:child_process';
import { NATIVE_SOURCE_TEXT, parseDataJson, PyFloat } from '@app/engine';
import {
  DELIBERATE_DIFFERENCES,
  EXPRESSION_DATA_JSON,
  FILTER_CASES,
  GLOBAL_CASES,
  METHOD_CASES,
  OPERATORS,
  TEST_CASES,
} from './support/expression-cases';

const PYTHON = '/usr/bin/python3';

function python(script: string, input: string, ...args: string[]): string {
  const res = spawnSync(PYTHON, ['-c', script, ...args], { input, encoding: 'utf8' });
  expect(res.stderr).toBe('');
  expect(res.status).toBe(0);
  return res.stdout;
}

describe('the expression tables agree with Jinja2', () => {
  it('Jinja2 prints what the tables expect for every operator, filter, test, method and global row', () => {
    const rows = [...OPERATORS, ...FILTER_CASES, ...TEST_CASES, ...METHOD_CASES, ...GLOBAL_CASES].filter(
      ([src]) => !DELIBERATE_DIFFERENCES.has(src),
    );
    const script = [
      'import json, sys, jinja2',
      'req = json.load(sys.stdin)',
      'env = jinja2.Environment()',
      'out = []',
      'for src in req["rows"]:',
      '    try: out.append(env.from_string("{{ " + src + " }}").render(**req["data"]))',
      '    except Exception as e: out.append("ERROR " + type(e).__name__ + ": " + str(e))',
      'print(json.dumps(out))',
    ].join('\n');
    const { data: _ignored, ...plain } = { data: null, ...(JSON.parse(EXPRESSION_DATA_JSON) as object) };
    const jinja = JSON.parse(
      python(script, JSON.stringify({ rows: rows.map(([src]) => src), data: plain })),
    ) as string[];
    const mismatches = rows
      .map(([src, expected], i) => ({ src, expected, jinja: jinja[i] }))
      .filter((r) => r.expected !== r.jinja);
    expect(mismatches).toEqual([]);
  });
});

describe('JSON numbers (issue 23)', () => {
  it('Python’s json and our reading agree on which numbers are floats', () => {
    const data =
      '{"price": 9.0, "qty": 3, "rate": 1e2, "half": 2.50, "neg": -4.000, "big": 12345678901234567890, "tiny": 1e-7, "zero": 0, "negzero": -0.0}';
    const keys = Object.keys(JSON.parse(data) as object);
    const py = python(
      'import json,sys; d=json.loads(sys.stdin.read()); print(" ".join(type(d[k]).__name__ for k in sys.argv[1:]))',
      data,
      ...keys,
    );
    // Node 20's fallback reading, and the native one where this Node has it.
    for (const native of NATIVE_SOURCE_TEXT ? [false, true] : [false]) {
      const ours = parseDataJson(data, native) as Record<string, unknown>;
      const kinds = keys.map((k) =>
        ours[k] instanceof PyFloat || !Number.isInteger(ours[k]) ? 'float' : 'int',
      );
      expect(kinds.join(' ')).toBe(py.trim());
    }
  });
});
