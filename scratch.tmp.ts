import { readFileSync, writeFileSync } from 'node:fs';
import { loadSigningProfiles, signPdf } from '@app/signing';
import { startTestPki } from './test/support/test-pki';
(async () => {
  let t = Date.now();
  const pki = await startTestPki();
  console.log('pki', Date.now() - t, pki.dir);
  const profiles = await loadSigningProfiles({ env: {
    SIGNING_PROFILE_COMPANY_P12: pki.p12, SIGNING_PROFILE_COMPANY_PASSWORD_FILE: pki.passwordFile, SIGNING_PROFILE_COMPANY_TSA_URL: pki.tsaUrl,
    SIGNING_PROFILE_PEM_KEY: pki.keyPem, SIGNING_PROFILE_PEM_CHAIN: pki.chainPem,
  } });
  console.log([...profiles.keys()]);
  const inv = readFileSync('/tmp/sc/invoice.pdf');
  const fx = readFileSync('/tmp/sc/facturx.pdf');
  for (const level of ['B-B', 'B-T', 'B-LT', 'B-LTA'] as const) {
    t = Date.now();
    const out = await signPdf(inv, profiles.get('company')!, { level, reason: 'Approved', visible: { name: 'seller', page: 1, rect: [300, 100, 470, 171] }, emptyFields: [{ name: 'buyer', page: 1, rect: [60, 100, 230, 171] }] });
    console.log(level, Date.now() - t, out.length);
    writeFileSync(`/tmp/sc/inv-${level}.pdf`, out);
    const o2 = await signPdf(fx, profiles.get('company')!, { level });
    writeFileSync(`/tmp/sc/fx-${level}.pdf`, o2);
  }
  require('node:child_process').execSync(`cp ${pki.rootPem} /tmp/sc/root.pem`);
  await pki.close();
})().catch((e) => { console.error(e); process.exit(1); });
