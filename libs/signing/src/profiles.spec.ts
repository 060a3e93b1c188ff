import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { httpStatusOf } from '@app/contracts';
import {
  SigningCertificateInvalidError,
  SigningServiceFailedError,
  UnknownSigningProfileError,
} from './errors';
import { loadSigningProfiles, profileNamed, profileSources } from './profiles';
import { defaultLevel } from './types';

describe('profileSources', () => {
  it('reads directories, <name>.json files and variables; a variable wins', () => {
    const dir = mkdtempSync(join(tmpdir(), 'profiles-'));
    mkdirSync(join(dir, 'company'));
    writeFileSync(join(dir, 'company', 'signer.p12'), '');
    writeFileSync(join(dir, 'company', 'password'), 'x');
    writeFileSync(
      join(dir, 'company', 'profile.json'),
      JSON.stringify({ tsa_url: 'http://tsa.test/', default_level: 'B-LT' }),
    );
    writeFileSync(join(dir, 'legal.json'), JSON.stringify({ key: 'legal.key', chain: '/abs/chain.pem' }));
    const sources = profileSources({
      profilesDir: dir,
      env: {
        SIGNING_PROFILE_COMPANY_TSA_URL: 'http://other.test/',
        SIGNING_PROFILE_ACME_EU_KEY: '/k.pem',
        UNRELATED: 'x',
      },
    });
    expect(sources).toEqual([
      {
        name: 'company',
        tsaUrl: 'http://other.test/',
        defaultLevel: 'B-LT',
        p12: join(dir, 'company', 'signer.p12'),
        passwordFile: join(dir, 'company', 'password'),
      },
      { name: 'legal', key: join(dir, 'legal.key'), chain: '/abs/chain.pem' },
      { name: 'acme-eu', key: '/k.pem' },
    ]);
  });

  it('an unknown key in a profile file names the profile and the key', () => {
    const dir = mkdtempSync(join(tmpdir(), 'profiles-'));
    writeFileSync(join(dir, 'sales.json'), JSON.stringify({ pasword_file: 'x' }));
    expect(() => profileSources({ profilesDir: dir })).toThrow(
      'signing profile "sales" cannot be loaded: unknown key "pasword_file"',
    );
  });
});

describe('loadSigningProfiles refusals name the profile', () => {
  it.each([
    [
      { SIGNING_PROFILE_A_P12: '/nonexistent.p12' },
      /"a" cannot be loaded: a PKCS#12 profile needs a password file/,
    ],
    [
      { SIGNING_PROFILE_A_P12: '/nonexistent.p12', SIGNING_PROFILE_A_PASSWORD_FILE: '/nonexistent' },
      /"a" cannot be loaded: its PKCS#12 file \/nonexistent.p12 is not readable \(ENOENT\)/,
    ],
    [{ SIGNING_PROFILE_A_KEY: '/k.pem' }, /"a" cannot be loaded: a PEM key needs its certificate chain/],
    [
      { SIGNING_PROFILE_A_TSA_URL: 'http://tsa.test/' },
      /"a" cannot be loaded: it has neither a PKCS#12 file nor a PEM key/,
    ],
  ])('%j', async (env, message) => {
    await expect(loadSigningProfiles({ env })).rejects.toThrow(message);
  });

  it('none configured: none loaded', async () => {
    expect((await loadSigningProfiles({ env: {} })).size).toBe(0);
  });
});

it('the default level is B-T with an authority, else B-B, unless the profile says', () => {
  expect(defaultLevel({})).toBe('B-B');
  expect(defaultLevel({ tsaUrl: 'http://tsa.test/' })).toBe('B-T');
  expect(defaultLevel({ tsaUrl: 'http://tsa.test/', defaultLevel: 'B-LTA' })).toBe('B-LTA');
});

it('the errors have the statuses of the issue', () => {
  expect(httpStatusOf(new UnknownSigningProfileError('x').errorType)).toBe(400);
  expect(httpStatusOf(new SigningCertificateInvalidError('x').errorType)).toBe(422);
  const failed = new SigningServiceFailedError('x', { service: 'tsa' });
  expect(httpStatusOf(failed.errorType)).toBe(502);
  expect(failed.details.retryable).toBe(true);
});

it('a profile the deployment does not have: 400 unknown_signing_profile naming it and the ones there are', () => {
  const profiles = new Map([['company', { name: 'company' } as never]]);
  expect(profileNamed(profiles, 'company')).toEqual({ name: 'company' });
  let error: unknown;
  try {
    profileNamed(profiles, 'sales');
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(UnknownSigningProfileError);
  expect((error as UnknownSigningProfileError).message).toContain('"sales"');
  expect((error as UnknownSigningProfileError).details).toEqual({
    field: 'options.pdf.signature.profile',
    profile: 'sales',
    profiles: ['company'],
  });
  expect(httpStatusOf((error as UnknownSigningProfileError).errorType)).toBe(400);
});
