import { settingsVariables } from '@app/config';
import { API_SETTINGS, loadApiSettings } from './settings';

const load = loadApiSettings;

describe("the API's settings", () => {
  it('reads its listener, and the request defaults', () => {
    expect(load({}).http).toMatchObject({ port: 8000, host: '0.0.0.0', playground: true });
    expect(load({ PORT: '9000', PLAYGROUND: 'off' }).http).toMatchObject({ port: 9000, playground: false });
    expect(() => load({ PORT: 'abc' })).toThrow(/PORT must be an integer \(got 'abc'\)/);
    expect(() => load({ DEFAULT_UNDEFINED: 'loose' })).toThrow(
      /DEFAULT_UNDEFINED must be one of empty, strict/,
    );
  });

  it('DEFAULT_LOCALE and DEFAULT_TIMEZONE: en_US and UTC unless set; unknown ones are named', () => {
    expect(load({}).defaults).toEqual({ undefined: 'empty', locale: 'en_US', timezone: 'UTC' });
    expect(load({ DEFAULT_LOCALE: 'de-DE', DEFAULT_TIMEZONE: 'Europe/Berlin' }).defaults.locale).toBe(
      'de-DE',
    );
    expect(() => load({ DEFAULT_LOCALE: 'not a locale' })).toThrow(/DEFAULT_LOCALE/);
    expect(() => load({ DEFAULT_TIMEZONE: 'Europe/Atlantis' })).toThrow(/DEFAULT_TIMEZONE/);
  });

  it('reads the JSON depth limit', () => {
    expect(load({}).limits.jsonDepth).toBe(64);
    expect(load({ MAX_JSON_DEPTH: '100' }).limits.jsonDepth).toBe(100);
    expect(() => load({ MAX_JSON_DEPTH: '1' })).toThrow(/MAX_JSON_DEPTH/);
    expect(() => load({ MAX_JSON_DEPTH: '100000' })).toThrow(/MAX_JSON_DEPTH/);
  });

  it('leaves Bull Board off unless both credentials are set, and refuses a user with a colon', () => {
    expect(load({}).http.board).toBeUndefined();
    expect(load({ BULL_BOARD_USER: 'ops' }).http.board).toBeUndefined();
    expect(load({ BULL_BOARD_USER: 'ops', BULL_BOARD_PASSWORD: 's3cret' }).http.board).toEqual({
      user: 'ops',
      password: 's3cret',
    });
    expect(() => load({ BULL_BOARD_USER: 'a:b', BULL_BOARD_PASSWORD: 'x' })).toThrow(/BULL_BOARD_USER/);
  });

  it("never reads the converter's or the worker's variables: the API converts nothing", () => {
    expect(() => load({ LIBREOFFICE_INSTANCES: 'many', WORKER_CONCURRENCY: 'x' })).not.toThrow();
    const names = settingsVariables(API_SETTINGS);
    expect(names).toEqual(expect.arrayContaining(['PORT', 'HOST', 'REDIS_URL', 'BULL_BOARD_PASSWORD']));
    expect(names).not.toContain('GOTENBERG_URL');
    expect(names).not.toContain('WORKER_CONCURRENCY');
  });
});
