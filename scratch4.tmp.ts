import { readFileSync } from 'node:fs';
import { signaturesIn, cmsPrint, signatureValueAndToken } from './test/support/pdf-signatures';
const s = signaturesIn(readFileSync('/tmp/sc/k-B-T.pdf'));
const out = cmsPrint(s[0].contents, '/tmp/sc');
console.log(out.split('\n').filter(l => /object:|smime|signing|Time/i.test(l)).slice(0,20).join('\n'));
console.log(signatureValueAndToken(s[0].contents).token?.length);
