/**
 * A test PKI on loopback, built with the openssl command in a temporary directory: a root CA, an
 * intermediate, a signer (PKCS#12 with a password file, and the same as PEM), an expired signer,
 * a time-stamping authority (`openssl ts -reply` per request), OCSP (`openssl ocsp` per request,
 * each CA answering for what it issued) and CRLs over HTTP. One Node HTTP server on a random
 * 127.0.0.1 port serves them all; the certificates' AIA and CRL distribution points name it.
 * The TSA's certificate has a CRL distribution point only, so B-LT uses both kinds of revocation data.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface TestPki {
  dir: string;
  url: string;
  tsaUrl: string;
  /** Signer: PKCS#12 and its password file; PEM key and chain (signer, intermediate, root). */
  p12: string;
  passwordFile: string;
  password: string;
  keyPem: string;
  chainPem: string;
  /** An expired signer (2020) as PEM. */
  expiredKeyPem: string;
  expiredChainPem: string;
  rootPem: string;
  /** Requests the TSA answered (B-T, B-LTA). */
  tsaRequests: number;
  /** When set, the TSA answers HTTP 500. */
  tsaDown: boolean;
  close(): Promise<void>;
}

const ossl = (args: string[], cwd: string) =>
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });

function caConfig(dir: string, base: string): string {
  return `[ ca ]
default_ca = CA_default
[ CA_default ]
dir = ${dir}
database = $dir/index.txt
new_certs_dir = $dir/newcerts
certificate = $dir/ca.crt
private_key = $dir/ca.key
serial = $dir/serial
crlnumber = $dir/crlnumber
default_md = sha256
default_days = 365
default_crl_days = 7
policy = policy_any
unique_subject = no
copy_extensions = none
[ policy_any ]
commonName = supplied
organizationName = optional
[ v3_ca ]
basicConstraints = critical, CA:true
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
authorityInfoAccess = OCSP;URI:${base}/ocsp/root
crlDistributionPoints = URI:${base}/crl/root.crl
[ signer ]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature, nonRepudiation
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
authorityInfoAccess = OCSP;URI:${base}/ocsp/int
crlDistributionPoints = URI:${base}/crl/int.crl
[ tsa ]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature, nonRepudiation
extendedKeyUsage = critical, timeStamping
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
crlDistributionPoints = URI:${base}/crl/int.crl
`;
}

function tsaConfig(dir: string): string {
  return `[ tsa ]
default_tsa = tsa1
[ tsa1 ]
dir = ${dir}
serial = $dir/tsaserial
crypto_device = builtin
signer_cert = $dir/tsa.crt
certs = $dir/tsa-chain.pem
signer_key = $dir/tsa.key
signer_digest = sha256
default_policy = 1.2.3.4.1
digests = sha256, sha384, sha512
accuracy = secs:1
ordering = yes
tsa_name = yes
ess_cert_id_chain = no
ess_cert_id_alg = sha256
`;
}

function makeCa(root: string, name: string, base: string): string {
  const dir = join(root, name);
  mkdirSync(join(dir, 'newcerts'), { recursive: true });
  writeFileSync(join(dir, 'index.txt'), '');
  writeFileSync(join(dir, 'serial'), name === 'root' ? '1000\n' : '2000\n');
  writeFileSync(join(dir, 'crlnumber'), '01\n');
  writeFileSync(join(dir, 'ca.cnf'), caConfig(dir, base));
  return dir;
}

/** A key and a certificate issued by `ca` with `extensions`. */
function issue(
  ca: string,
  out: string,
  cn: string,
  extensions: string,
  dates?: { start: string; end: string },
): void {
  ossl(
    [
      'req',
      '-new',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      `${out}.key`,
      '-out',
      `${out}.csr`,
      '-subj',
      `/O=Test PKI/CN=${cn}`,
    ],
    ca,
  );
  ossl(
    [
      'ca',
      '-batch',
      '-notext',
      '-config',
      join(ca, 'ca.cnf'),
      '-extensions',
      extensions,
      '-in',
      `${out}.csr`,
      '-out',
      `${out}.crt`,
      ...(dates ? ['-startdate', dates.start, '-enddate', dates.end] : ['-days', '365']),
    ],
    ca,
  );
}

async function readBody(req: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

export async function startTestPki(): Promise<TestPki> {
  const dir = mkdtempSync(join(tmpdir(), 'test-pki-'));
  let counter = 0;
  const state = { tsaRequests: 0, tsaDown: false };
  const paths: { root?: string; int?: string } = {};
  let tsaQueue: Promise<unknown> = Promise.resolve();

  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const n = ++counter;
      const fail = (status: number) => {
        res.statusCode = status;
        res.end();
      };
      try {
        if (req.url === '/tsa' && req.method === 'POST') {
          if (state.tsaDown) return fail(500);
          state.tsaRequests++;
          const q = join(dir, `tsq-${n}`);
          writeFileSync(q, body);
          // One at a time: openssl ts reads and rewrites its serial file.
          const reply = tsaQueue.then(() =>
            run('openssl', [
              'ts',
              '-reply',
              '-config',
              join(dir, 'tsa.cnf'),
              '-queryfile',
              q,
              '-out',
              `${q}.tsr`,
            ]),
          );
          tsaQueue = reply.catch(() => undefined);
          await reply;
          res.setHeader('content-type', 'application/timestamp-reply');
          return res.end(readFileSync(`${q}.tsr`));
        }
        const ocsp = /^\/ocsp\/(root|int)$/.exec(req.url ?? '');
        if (ocsp && req.method === 'POST') {
          const ca = ocsp[1] === 'root' ? paths.root! : paths.int!;
          const q = join(dir, `ocsp-${n}`);
          writeFileSync(q, body);
          await run('openssl', [
            'ocsp',
            '-index',
            join(ca, 'index.txt'),
            '-CA',
            join(ca, 'ca.crt'),
            '-rsigner',
            join(ca, 'ca.crt'),
            '-rkey',
            join(ca, 'ca.key'),
            '-reqin',
            q,
            '-respout',
            `${q}.resp`,
            '-ndays',
            '1',
          ]);
          res.setHeader('content-type', 'application/ocsp-response');
          return res.end(readFileSync(`${q}.resp`));
        }
        const crl = /^\/crl\/(root|int)\.crl$/.exec(req.url ?? '');
        if (crl)
          return res.end(readFileSync(join(crl[1] === 'root' ? paths.root! : paths.int!, 'ca.crl.der')));
        fail(404);
      } catch {
        fail(500);
      }
    })();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const root = makeCa(dir, 'root', base);
  paths.root = root;
  ossl(
    [
      'req',
      '-x509',
      '-new',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'ca.key',
      '-out',
      'ca.crt',
      '-days',
      '3650',
      '-subj',
      '/O=Test PKI/CN=Test Root CA',
      '-addext',
      'basicConstraints=critical,CA:true',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
      '-addext',
      'subjectKeyIdentifier=hash',
    ],
    root,
  );
  const int = makeCa(dir, 'int', base);
  paths.int = int;
  issue(root, join(int, 'ca'), 'Test Intermediate CA', 'v3_ca');
  issue(int, join(dir, 'signer'), 'Ada Lovelace (Test Signer)', 'signer');
  issue(int, join(dir, 'expired'), 'Expired Signer', 'signer', {
    start: '20200101000000Z',
    end: '20210101000000Z',
  });
  issue(int, join(dir, 'tsa'), 'Test TSA', 'tsa');
  for (const ca of [root, int]) {
    ossl(['ca', '-gencrl', '-config', join(ca, 'ca.cnf'), '-out', 'ca.crl'], ca);
    ossl(['crl', '-in', 'ca.crl', '-outform', 'DER', '-out', 'ca.crl.der'], ca);
  }
  const rootPem = readFileSync(join(root, 'ca.crt'), 'utf8');
  const intPem = readFileSync(join(int, 'ca.crt'), 'utf8');
  writeFileSync(join(dir, 'tsa-chain.pem'), intPem + rootPem);
  writeFileSync(join(dir, 'tsaserial'), '01\n');
  writeFileSync(join(dir, 'tsa.cnf'), tsaConfig(dir));
  writeFileSync(join(dir, 'chain.pem'), readFileSync(join(dir, 'signer.crt'), 'utf8') + intPem + rootPem);
  writeFileSync(
    join(dir, 'expired-chain.pem'),
    readFileSync(join(dir, 'expired.crt'), 'utf8') + intPem + rootPem,
  );
  const password = `pki-pass-${Math.random().toString(36).slice(2)}`;
  writeFileSync(join(dir, 'password'), `${password}\n`);
  writeFileSync(join(dir, 'int-root.pem'), intPem + rootPem);
  ossl(
    [
      'pkcs12',
      '-export',
      '-inkey',
      'signer.key',
      '-in',
      'signer.crt',
      '-certfile',
      'int-root.pem',
      '-out',
      'signer.p12',
      '-passout',
      `pass:${password}`,
    ],
    dir,
  );

  return {
    dir,
    url: base,
    tsaUrl: `${base}/tsa`,
    p12: join(dir, 'signer.p12'),
    passwordFile: join(dir, 'password'),
    password,
    keyPem: join(dir, 'signer.key'),
    chainPem: join(dir, 'chain.pem'),
    expiredKeyPem: join(dir, 'expired.key'),
    expiredChainPem: join(dir, 'expired-chain.pem'),
    rootPem: join(root, 'ca.crt'),
    get tsaRequests() {
      return state.tsaRequests;
    },
    get tsaDown() {
      return state.tsaDown;
    },
    set tsaDown(v: boolean) {
      state.tsaDown = v;
    },
    async close() {
      await new Promise<void>((r) => server.close(() => r()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
