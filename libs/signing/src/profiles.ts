/**
 * The operator's signing profiles (docs/signing.md), loaded once at the worker's start from
 * SIGNING_PROFILES_DIR and SIGNING_PROFILE_<NAME>_* variables. A profile that cannot be loaded
 * throws SigningProfileError naming it; no message ever carries a password or key material.
 */
import { createPrivateKey, createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, extname, isAbsolute, join, resolve } from 'node:path';
import forge from 'node-forge';
import { SigningProfileError, UnknownSigningProfileError } from './errors';
import { PADES_LEVELS, type PadesLevel, type SigningProfile } from './types';

/** One profile's description before its files are read (a profile.json, a <name>.json, or variables). */
export interface ProfileSource {
  name: string;
  /** PKCS#12 file and the file holding its password. */
  p12?: string;
  passwordFile?: string;
  /** Or PEM: the private key (optionally encrypted, then keyPasswordFile) and the chain, signer first. */
  key?: string;
  keyPasswordFile?: string;
  chain?: string;
  tsaUrl?: string;
  defaultLevel?: string;
  ocspUrl?: string;
}

export interface SigningProfilesSettings {
  profilesDir?: string;
  /** The environment (SIGNING_PROFILE_<NAME>_*). */
  env?: Record<string, string | undefined>;
  requestTimeoutMs?: number;
}

const NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const ENV_KEYS: Record<string, keyof ProfileSource> = {
  P12: 'p12',
  PASSWORD_FILE: 'passwordFile',
  KEY: 'key',
  KEY_PASSWORD_FILE: 'keyPasswordFile',
  CHAIN: 'chain',
  TSA_URL: 'tsaUrl',
  DEFAULT_LEVEL: 'defaultLevel',
  OCSP_URL: 'ocspUrl',
};
/** profile.json / <name>.json keys (snake_case as the rest of the request and files). */
const JSON_KEYS: Record<string, keyof ProfileSource> = {
  p12: 'p12',
  password_file: 'passwordFile',
  key: 'key',
  key_password_file: 'keyPasswordFile',
  chain: 'chain',
  tsa_url: 'tsaUrl',
  default_level: 'defaultLevel',
  ocsp_url: 'ocspUrl',
};

function fromJson(name: string, file: string, baseDir: string): ProfileSource {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new SigningProfileError(name, `${basename(file)} is not readable JSON (${(e as Error).message})`);
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw))
    throw new SigningProfileError(name, `${basename(file)} is no object`);
  const source: ProfileSource = { name };
  for (const [k, v] of Object.entries(raw)) {
    const key = JSON_KEYS[k];
    if (!key) throw new SigningProfileError(name, `unknown key "${k}" in ${basename(file)}`);
    if (typeof v !== 'string') throw new SigningProfileError(name, `"${k}" must be a string`);
    const isPath = ['p12', 'passwordFile', 'key', 'keyPasswordFile', 'chain'].includes(key);
    (source as unknown as Record<string, string>)[key] = isPath && !isAbsolute(v) ? resolve(baseDir, v) : v;
  }
  return source;
}

/** A profile directory: profile.json optional; *.p12/*.pfx + password, or key.pem + chain.pem. */
function fromDirectory(name: string, dir: string): ProfileSource {
  const files = readdirSync(dir);
  const source: ProfileSource = files.includes('profile.json')
    ? fromJson(name, join(dir, 'profile.json'), dir)
    : { name };
  const p12 = files.find((f) => /\.(p12|pfx)$/i.test(f));
  if (!source.p12 && !source.key && p12) source.p12 = join(dir, p12);
  if (source.p12 && !source.passwordFile && files.includes('password'))
    source.passwordFile = join(dir, 'password');
  if (!source.p12 && !source.key && files.includes('key.pem')) source.key = join(dir, 'key.pem');
  if (source.key && !source.chain && files.includes('chain.pem')) source.chain = join(dir, 'chain.pem');
  return source;
}

/** The profiles' descriptions from the directory and the variables (a variable wins over a file). */
export function profileSources(settings: SigningProfilesSettings): ProfileSource[] {
  const byName = new Map<string, ProfileSource>();
  if (settings.profilesDir) {
    let entries: string[];
    try {
      entries = readdirSync(settings.profilesDir);
    } catch (e) {
      throw new SigningProfileError(
        '*',
        `SIGNING_PROFILES_DIR ${settings.profilesDir} is not readable (${(e as NodeJS.ErrnoException).code})`,
      );
    }
    for (const entry of entries.sort()) {
      const path = join(settings.profilesDir, entry);
      const isDir = statSync(path).isDirectory();
      if (!isDir && extname(entry) !== '.json') continue;
      const name = isDir ? entry : basename(entry, '.json');
      if (!NAME.test(name))
        throw new SigningProfileError(name, 'a profile name is lower-case letters, digits, - and _');
      byName.set(name, isDir ? fromDirectory(name, path) : fromJson(name, path, settings.profilesDir));
    }
  }
  for (const [variable, value] of Object.entries(settings.env ?? {})) {
    const m =
      /^SIGNING_PROFILE_([A-Z0-9_]+?)_(P12|PASSWORD_FILE|KEY_PASSWORD_FILE|KEY|CHAIN|TSA_URL|DEFAULT_LEVEL|OCSP_URL)$/.exec(
        variable,
      );
    if (!m || value === undefined || value === '') continue;
    const name = m[1].toLowerCase().replace(/_/g, '-');
    const source = byName.get(name) ?? { name };
    (source as unknown as Record<string, string>)[ENV_KEYS[m[2]]] = value;
    byName.set(name, source);
  }
  return [...byName.values()];
}

function readSecret(profile: string, what: string, file: string): string {
  try {
    // A trailing newline is the editor's, not the password's.
    return readFileSync(file, 'utf8').replace(/\r?\n$/, '');
  } catch (e) {
    throw new SigningProfileError(
      profile,
      `its ${what} file is not readable (${(e as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
}

function readFile(profile: string, what: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (e) {
    throw new SigningProfileError(
      profile,
      `its ${what} file ${file} is not readable (${(e as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
}

function pemCertificates(pem: string): Buffer[] {
  return [...pem.matchAll(/-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g)].map((m) =>
    Buffer.from(m[1].replace(/\s/g, ''), 'base64'),
  );
}

/** PKCS#12 through node-forge: Node's crypto reads no PKCS#12. */
function fromP12(profile: string, der: Buffer, password: string): { key: KeyObject; certs: Buffer[] } {
  let p12: forge.pkcs12.Pkcs12Pfx;
  try {
    p12 = forge.pkcs12.pkcs12FromAsn1(
      forge.asn1.fromDer(forge.util.createBuffer(der.toString('binary'))),
      password,
    );
  } catch {
    // forge's message may quote the file's bytes; say only what went wrong.
    throw new SigningProfileError(
      profile,
      'its PKCS#12 file cannot be opened (wrong password or damaged file)',
    );
  }
  const toBuffer = (a: forge.asn1.Asn1) => Buffer.from(forge.asn1.toDer(a).getBytes(), 'binary');
  let key: KeyObject | undefined;
  const certs: Buffer[] = [];
  for (const safe of p12.safeContents) {
    for (const bag of safe.safeBags) {
      const raw = (bag as { asn1?: forge.asn1.Asn1 }).asn1;
      if (bag.type === forge.pki.oids.certBag) {
        if (bag.cert) certs.push(toBuffer(forge.pki.certificateToAsn1(bag.cert)));
        else if (raw) certs.push(toBuffer(raw));
      } else if (bag.type === forge.pki.oids.pkcs8ShroudedKeyBag || bag.type === forge.pki.oids.keyBag) {
        const info = bag.key
          ? forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(bag.key as forge.pki.rsa.PrivateKey))
          : raw;
        if (info) key = createPrivateKey({ key: toBuffer(info), format: 'der', type: 'pkcs8' });
      }
    }
  }
  if (!key) throw new SigningProfileError(profile, 'its PKCS#12 file holds no private key');
  return { key, certs };
}

/** The signer's certificate (the one of the key) first, then its issuers in order. */
function orderChain(profile: string, key: KeyObject, certs: Buffer[]): Buffer[] {
  const parsed = certs.map((der) => ({ der, x: new X509Certificate(der) }));
  const spki = createPublicKey(key).export({ type: 'spki', format: 'der' });
  const leaf = parsed.find((c) => c.x.publicKey.export({ type: 'spki', format: 'der' }).equals(spki));
  if (!leaf) throw new SigningProfileError(profile, 'no certificate of its chain belongs to its private key');
  const chain = [leaf];
  for (;;) {
    const last = chain[chain.length - 1].x;
    if (last.issuer === last.subject) break;
    const next = parsed.find((c) => !chain.includes(c) && c.x.subject === last.issuer);
    if (!next) break;
    chain.push(next);
  }
  return chain.map((c) => c.der);
}

function checkUrl(profile: string, what: string, url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new SigningProfileError(profile, `its ${what} is no URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new SigningProfileError(profile, `its ${what} is not http(s)`);
  return url;
}

export function loadProfile(source: ProfileSource, requestTimeoutMs: number): SigningProfile {
  const name = source.name;
  let key: KeyObject;
  let certs: Buffer[];
  if (source.p12) {
    if (!source.passwordFile) throw new SigningProfileError(name, 'a PKCS#12 profile needs a password file');
    ({ key, certs } = fromP12(
      name,
      readFile(name, 'PKCS#12', source.p12),
      readSecret(name, 'password', source.passwordFile),
    ));
  } else if (source.key) {
    if (!source.chain)
      throw new SigningProfileError(name, 'a PEM key needs its certificate chain (chain.pem)');
    const passphrase = source.keyPasswordFile
      ? readSecret(name, 'key password', source.keyPasswordFile)
      : undefined;
    try {
      key = createPrivateKey({ key: readFile(name, 'key', source.key), format: 'pem', passphrase });
    } catch {
      throw new SigningProfileError(
        name,
        'its PEM private key cannot be read (wrong password, or not a PEM key)',
      );
    }
    certs = pemCertificates(readFile(name, 'chain', source.chain).toString('latin1'));
  } else {
    throw new SigningProfileError(name, 'it has neither a PKCS#12 file nor a PEM key');
  }
  if (!certs.length) throw new SigningProfileError(name, 'it holds no certificate');
  if (key.asymmetricKeyType !== 'rsa' && key.asymmetricKeyType !== 'ec') {
    throw new SigningProfileError(name, `its key is ${key.asymmetricKeyType}; RSA and EC keys are supported`);
  }
  const chain = orderChain(name, key, certs);
  const level = source.defaultLevel;
  if (level !== undefined && !PADES_LEVELS.includes(level as PadesLevel)) {
    throw new SigningProfileError(name, `default_level "${level}" is not one of ${PADES_LEVELS.join(', ')}`);
  }
  const tsaUrl = checkUrl(name, 'tsa_url', source.tsaUrl);
  if (level && level !== 'B-B' && !tsaUrl)
    throw new SigningProfileError(name, `default_level ${level} needs a tsa_url`);
  return {
    name,
    key,
    chain,
    tsaUrl,
    defaultLevel: level as PadesLevel | undefined,
    ocspUrl: checkUrl(name, 'ocsp_url', source.ocspUrl),
    requestTimeoutMs,
  };
}

/** Every configured profile, loaded; the first that cannot be loaded throws SigningProfileError. */
export async function loadSigningProfiles(
  settings: SigningProfilesSettings,
): Promise<Map<string, SigningProfile>> {
  const profiles = new Map<string, SigningProfile>();
  for (const source of profileSources(settings)) {
    profiles.set(source.name, loadProfile(source, settings.requestTimeoutMs ?? 10_000));
  }
  return profiles;
}

/** The profile a request names, or the typed 400 naming it (and the profiles there are). */
export function profileNamed(profiles: ReadonlyMap<string, SigningProfile>, name: string): SigningProfile {
  const profile = profiles.get(name);
  if (!profile) {
    throw new UnknownSigningProfileError(
      `options.pdf.signature.profile "${name}" is not a signing profile of this deployment`,
      {
        field: 'options.pdf.signature.profile',
        profile: name,
        profiles: [...profiles.keys()].sort(),
      },
    );
  }
  return profile;
}
