/**
 * A self-signed certificate for 127.0.0.1, made with the machine's openssl, for tests of clients
 * that speak TLS (the RM client with a configured CA, `run` to an https sidecar).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Whether openssl runs here (the TLS tests are skipped without it). */
export const hasOpenssl = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** Writes key.pem and cert.pem (EC P-256, one day, CN and SAN 127.0.0.1) into dir; returns both. */
export function selfSignedCert(dir: string): { key: Buffer; cert: Buffer; certPath: string } {
  const keyPath = join(dir, 'key.pem');
  const certPath = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
      ...['-keyout', keyPath, '-out', certPath, '-days', '1'],
      ...['-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'],
    ],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(keyPath), cert: readFileSync(certPath), certPath };
}
