import type { KeyObject } from 'node:crypto';

export type PadesLevel = 'B-B' | 'B-T' | 'B-LT' | 'B-LTA';
export const PADES_LEVELS: readonly PadesLevel[] = ['B-B', 'B-T', 'B-LT', 'B-LTA'];

/** One of the operator's signing identities (docs/signing.md); never sent by callers. */
export interface SigningProfile {
  name: string;
  key: KeyObject;
  /** DER certificates: the signer's first, then its issuers (the root may be included). */
  chain: Buffer[];
  /** RFC 3161 time-stamping authority (B-T and above). */
  tsaUrl?: string;
  defaultLevel?: PadesLevel;
  /** Asked instead of the certificates' own AIA OCSP address. */
  ocspUrl?: string;
  /** Each request to the authority, a responder or a CRL server. */
  requestTimeoutMs: number;
}

export interface SignaturePlace {
  name: string;
  /** 1-based. */
  page: number;
  /** PDF points: x1 y1 x2 y2. */
  rect: [number, number, number, number];
}

export interface SignRequest {
  level?: PadesLevel;
  reason?: string;
  location?: string;
  contactInfo?: string;
  /** The place to sign visibly; absent = invisible signature. */
  visible?: SignaturePlace & { image?: Buffer /* PNG */ };
  /** Further places left as empty, signable AcroForm signature fields (/FT /Sig, no /V). */
  emptyFields?: SignaturePlace[];
  /** For tests: the signing time (certificate validity, /M). */
  now?: Date;
}

/** B-T with a time-stamping authority, else B-B (the default). */
export function defaultLevel(profile: Pick<SigningProfile, 'tsaUrl' | 'defaultLevel'>): PadesLevel {
  return profile.defaultLevel ?? (profile.tsaUrl ? 'B-T' : 'B-B');
}
