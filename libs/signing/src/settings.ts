/**
 * The signing group (docs/signing.md, docs/configuration.md): where the operator's profiles are
 * and how long a request to their authorities may take. The profiles' own SIGNING_PROFILE_<NAME>_*
 * variables have open-ended names, so they are read from the environment by profileSources, not
 * declared here.
 */
import { defineSettings, Setting } from '@app/config';
import type { SigningProfilesSettings } from './profiles';

export const signingSettings = defineSettings({
  variables: {
    /** One sub-directory or <name>.json per profile (docs/signing.md#profiles). */
    SIGNING_PROFILES_DIR: Setting.optional(Setting.string()),
    /** Each request to a time-stamping authority, OCSP responder or CRL server. */
    SIGNING_REQUEST_TIMEOUT_MS: Setting.integer({ minimum: 100, maximum: 600_000, default: 10_000 }),
  },
  slice: (v): Omit<SigningProfilesSettings, 'env'> => ({
    profilesDir: v.SIGNING_PROFILES_DIR,
    requestTimeoutMs: v.SIGNING_REQUEST_TIMEOUT_MS,
  }),
});
