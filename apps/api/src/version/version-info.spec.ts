import { Value } from '@sinclair/typebox/value';
import { versionInfo, VersionInfoSchema } from './version-info';

describe('versionInfo', () => {
  it("gives the seed system's features object to the letter, our capabilities beside it", () => {
    const info = versionInfo(null, false);
    expect(info.features).toEqual({
      undefined_behavior_options: ['silent', 'property_missing', 'debug', 'strict'],
      default_undefined_behavior: 'silent',
      missing_fields_handling: true,
    });
    expect(info.capabilities).toEqual(
      expect.arrayContaining(['lint', 'inspect', 'docx_output', 'missing_fields_configurable']),
    );
    // A boolean, as the seed's own tests read it: the string "configurable" read as false there.
    expect(info.features.missing_fields_handling).toBe(true);
    expect(info.capabilities).not.toContain('playground');
    expect(versionInfo(null, true).capabilities).toContain('playground');
  });

  it('names the configured default undefined behaviour by its seed name', () => {
    expect(versionInfo(null, false, 'strict').features.default_undefined_behavior).toBe('strict');
    expect(versionInfo(null, false, 'empty').features.default_undefined_behavior).toBe('silent');
  });

  it('answers exactly what its schema (and so the OpenAPI document) says, with and without a worker', () => {
    for (const info of [
      versionInfo(null, false),
      versionInfo({ kind: 'libreoffice', version: 'LibreOffice 7.4.7.2 40(Build:2)' }, true, 'strict'),
    ]) {
      expect([...Value.Errors(VersionInfoSchema, info)]).toEqual([]);
    }
    // A field the schema lacks would be refused: the check above can fail.
    expect(Value.Check(VersionInfoSchema, { ...versionInfo(null, false), engine: {} })).toBe(false);
  });
});
