import {
  ConfigurationError,
  defineSettings,
  HOST_SETTING,
  loadSettings,
  Setting,
  settingsVariables,
} from './settings';

const sample = defineSettings({
  variables: {
    PORT: Setting.integer({ minimum: 0, maximum: 65535, default: 8000 }),
    TIMEOUT_MS: Setting.integer({ minimum: 100, default: 60_000 }),
    LIMIT: Setting.optional(Setting.integer({ minimum: 1 })),
    PREFIX: Setting.string({ default: '{docx}', pattern: /^\{.+\}$/, message: 'PREFIX must be in braces' }),
    MODE: Setting.onOff({ default: 'on' }),
    HOST: HOST_SETTING,
  },
  check: (v) => (v.LIMIT !== undefined && v.LIMIT > v.TIMEOUT_MS ? ['LIMIT must not exceed TIMEOUT_MS'] : []),
  slice: (v) => ({
    port: v.PORT,
    timeoutMs: v.TIMEOUT_MS,
    limit: v.LIMIT,
    prefix: v.PREFIX,
    on: v.MODE === 'on',
  }),
});
const other = defineSettings({ variables: { HOST: HOST_SETTING }, slice: (v) => v.HOST });

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadSettings({ sample }, env);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigurationError);
    expect((e as Error).message).toMatch(/^Invalid configuration:\n {2}- /);
    return (e as ConfigurationError).problems;
  }
  throw new Error('no ConfigurationError');
}

describe('loadSettings', () => {
  it("gives each group's slice, with the schemas' defaults for unset and empty variables", () => {
    expect(loadSettings({ sample }, {}).sample).toEqual({
      port: 8000,
      timeoutMs: 60_000,
      limit: undefined,
      prefix: '{docx}',
      on: true,
    });
    expect(loadSettings({ sample }, { PORT: '', MODE: '  ' }).sample.port).toBe(8000);
  });

  it('reads integers with _ separators, trims values, reads words', () => {
    const { sample: s } = loadSettings(
      { sample },
      { PORT: ' 9000 ', TIMEOUT_MS: '1_500', LIMIT: '7', MODE: 'off' },
    );
    expect([s.port, s.timeoutMs, s.limit, s.on]).toEqual([9000, 1500, 7, false]);
  });

  it('names every wrong variable, what it must be, and the value it got', () => {
    expect(problemsOf({ PORT: 'abc', TIMEOUT_MS: '10', PREFIX: 'docx', MODE: 'yes', LIMIT: '1.5' })).toEqual([
      "PORT must be an integer (got 'abc')",
      "TIMEOUT_MS must be an integer of at least 100 (got '10')",
      "LIMIT must be an integer (got '1.5')",
      "PREFIX must be in braces (got 'docx')",
      "MODE must be one of on, off (got 'yes')",
    ]);
    expect(problemsOf({ PORT: '70000' })).toEqual(["PORT must be an integer from 0 to 65535 (got '70000')"]);
  });

  it("runs a group's own check once its variables pass their schemas", () => {
    expect(problemsOf({ LIMIT: '70000' })).toEqual(['LIMIT must not exceed TIMEOUT_MS']);
    // A variable already wrong is reported once, without the check built on it.
    expect(problemsOf({ LIMIT: '70000', TIMEOUT_MS: 'x' })).toEqual([
      "TIMEOUT_MS must be an integer (got 'x')",
    ]);
  });

  it('lets two groups share one variable (one schema), and lists each variable once', () => {
    expect(loadSettings({ sample, other }, { HOST: '127.0.0.1' }).other).toBe('127.0.0.1');
    expect(settingsVariables({ sample, other })).toEqual([
      'PORT',
      'TIMEOUT_MS',
      'LIMIT',
      'PREFIX',
      'MODE',
      'HOST',
    ]);
    const clash = defineSettings({ variables: { HOST: Setting.string() }, slice: () => 0 });
    expect(() => loadSettings({ sample, clash }, {})).toThrow(/HOST is declared by two groups/);
  });

  it('reads only the variables of the groups it is given', () => {
    expect(() => loadSettings({ other }, { PORT: 'abc' })).not.toThrow();
  });
});
