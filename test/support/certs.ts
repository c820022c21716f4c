import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** `YYMMDDHHMMSSZ` as `openssl ca -startdate/-enddate` take it. */
const asn1 = (ms: number) => new Date(ms).toISOString().replace(/[-:T]/g, '').slice(2, 14) + 'Z';
const run = (args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });

/** A test certificate authority made with `openssl` in `dir`, and leaf certificates it signs. */
export interface TestCa {
  /** The CA certificate (PEM), to trust in the test process (`tls.setDefaultCACertificates`). */
  cert: string;
  /**
   * A key and certificate for `san` (e.g. `IP:127.0.0.1` or `DNS:db.example.lan`), valid from
   * `fromDays` to `toDays` days around now (negative = in the past), with one hour of margin so
   * a floor of the days left is exactly `toDays` (or `-toDays - 1` once expired).
   */
  leaf(name: string, san: string, fromDays: number, toDays: number): { key: string; cert: string };
}

/** Makes a CA in `dir` with `openssl req -x509`, signing leaves with `openssl ca` (chosen start and end dates). */
export function testCa(dir: string): TestCa {
  const p = (f: string) => join(dir, f);
  writeFileSync(p('index.txt'), '');
  writeFileSync(p('serial'), '1000\n');
  writeFileSync(
    p('ca.cnf'),
    `[ca]\ndefault_ca = test\n[test]\ndir = ${dir}\ndatabase = ${p('index.txt')}\nserial = ${p('serial')}\nnew_certs_dir = ${dir}\n` +
      `certificate = ${p('ca.pem')}\nprivate_key = ${p('ca.key')}\ndefault_md = sha256\npolicy = any\ncopy_extensions = copy\nunique_subject = no\n[any]\ncommonName = supplied\n`,
  );
  run(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '30', '-subj', '/CN=Pharos Test CA', '-keyout', p('ca.key'), '-out', p('ca.pem')]);
  return {
    cert: readFileSync(p('ca.pem'), 'utf8'),
    leaf(name, san, fromDays, toDays) {
      run(['req', '-new', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${name}`, '-addext', `subjectAltName=${san}`, '-keyout', p(`${name}.key`), '-out', p(`${name}.csr`)]);
      const now = Date.now();
      const end = toDays >= 0 ? now + toDays * DAY_MS + HOUR_MS : now + toDays * DAY_MS - HOUR_MS;
      run(['ca', '-batch', '-config', p('ca.cnf'), '-startdate', asn1(now + fromDays * DAY_MS), '-enddate', asn1(end), '-in', p(`${name}.csr`), '-out', p(`${name}.pem`), '-notext']);
      return { key: readFileSync(p(`${name}.key`), 'utf8'), cert: readFileSync(p(`${name}.pem`), 'utf8') };
    },
  };
}

/** A self-signed certificate for `san` valid `days` days (`openssl req -x509`). */
export function selfSigned(dir: string, san: string, days = 30): { key: string; cert: string } {
  run(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', String(days), '-subj', '/CN=self', '-addext', `subjectAltName=${san}`, '-keyout', join(dir, 'self.key'), '-out', join(dir, 'self.pem')]);
  return { key: readFileSync(join(dir, 'self.key'), 'utf8'), cert: readFileSync(join(dir, 'self.pem'), 'utf8') };
}
