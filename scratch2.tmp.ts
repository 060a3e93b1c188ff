import { readFileSync, writeFileSync } from 'node:fs';
import { loadSigningProfiles, signPdf } from '@app/signing';
(async () => {
  const profiles = await loadSigningProfiles({ env: { SIGNING_PROFILE_C_KEY: '/tmp/test-pki-iWjvZp/signer.key', SIGNING_PROFILE_C_CHAIN: '/tmp/test-pki-iWjvZp/chain.pem', SIGNING_PROFILE_C_TSA_URL: 'http://127.0.0.1:45355/tsa' } });
  const inv = readFileSync('/tmp/sc/invoice.pdf');
  for (const level of ['B-B','B-T','B-LT','B-LTA'] as const) {
  for (let i = 0; i < 3; i++) { const t = process.hrtime.bigint(); const out = await signPdf(inv, profiles.get('c')!, { level });
  console.log(level, Number(process.hrtime.bigint() - t) / 1e6); writeFileSync('/tmp/sc/k-'+level+'.pdf', out); }
  }
  const out = await signPdf(inv, profiles.get('c')!, { level: 'B-B', visible: { name: 's', page: 1, rect: [300, 100, 470, 171] } });
  writeFileSync('/tmp/sc/k-vis.pdf', out);
})();
