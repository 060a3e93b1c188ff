export {
  SigningCertificateInvalidError,
  SigningProfileError,
  SigningServiceFailedError,
  UnknownSigningProfileError,
  UnsignablePdfError,
} from './errors';
export {
  loadSigningProfiles,
  profileNamed,
  profileSources,
  type ProfileSource,
  type SigningProfilesSettings,
} from './profiles';
export { addEmptySignatureFields, signPdf } from './sign-pdf';
export {
  defaultLevel,
  PADES_LEVELS,
  type PadesLevel,
  type SignaturePlace,
  type SigningProfile,
  type SignRequest,
} from './types';
export { signingSettings } from './settings';
