/**
 * Certificates for tests: a throwaway CA in a folder and identity
 * certificates from it (valid, expired, or naming any identity), made with
 * the openssl CLI (installed by `npm test`). Never used by a service.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { identityUri } from '../identity';

const OPENSSL_TIMEOUT_MS = 30_000;

function openssl(args: string[]): void {
  execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: OPENSSL_TIMEOUT_MS });
}

export interface IssueOptions {
  /** Validity in days (default 2); -1 issues a certificate that has already expired. */
  days?: number;
  /** File name stem; defaults to the identity. */
  name?: string;
}

export interface IssuedCertificate {
  certFile: string;
  keyFile: string;
  caFile: string;
}

export class TestCertificateAuthority {
  readonly caFile: string;
  private readonly caKeyFile: string;

  private constructor(
    readonly dir: string,
    files?: { caFile: string; caKeyFile: string },
  ) {
    this.caFile = files?.caFile ?? path.join(dir, 'ca.pem');
    this.caKeyFile = files?.caKeyFile ?? path.join(dir, 'ca-key.pem');
  }

  /** An existing CA (e.g. a test stack's), issuing into `dir`. */
  static fromFiles(dir: string, caFile: string, caKeyFile: string): TestCertificateAuthority {
    mkdirSync(dir, { recursive: true });
    return new TestCertificateAuthority(dir, { caFile, caKeyFile });
  }

  /** A new CA (EC P-256, valid a week) in `dir`. */
  static create(dir: string, commonName = 'Test CA'): TestCertificateAuthority {
    mkdirSync(dir, { recursive: true });
    const authority = new TestCertificateAuthority(dir);
    openssl([
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-sha256',
      '-days',
      '7',
      '-subj',
      `/CN=${commonName}`,
      '-keyout',
      authority.caKeyFile,
      '-out',
      authority.caFile,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ]);
    return authority;
  }

  /** A certificate naming `identity` (spiffe://platform/<identity>), for both server and client use. */
  issue(identity: string, options: IssueOptions = {}): IssuedCertificate {
    const stem = path.join(this.dir, options.name ?? identity);
    const files = { certFile: `${stem}.pem`, keyFile: `${stem}-key.pem`, caFile: this.caFile };
    const csr = `${stem}.csr`;
    const extensions = `${stem}.ext`;
    openssl([
      'req',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-subj',
      `/CN=${identity}`,
      '-keyout',
      files.keyFile,
      '-out',
      csr,
    ]);
    writeFileSync(
      extensions,
      [
        'basicConstraints = critical, CA:FALSE',
        'keyUsage = critical, digitalSignature, keyEncipherment',
        'extendedKeyUsage = serverAuth, clientAuth',
        `subjectAltName = ${identityUri(identity)}`.replace('= ', '= URI:'),
        '',
      ].join('\n'),
    );
    openssl([
      'x509',
      '-req',
      '-sha256',
      '-days',
      String(options.days ?? 2),
      '-in',
      csr,
      '-CA',
      this.caFile,
      '-CAkey',
      this.caKeyFile,
      '-set_serial',
      `0x${randomBytes(16).toString('hex')}`,
      '-extfile',
      extensions,
      '-out',
      files.certFile,
    ]);
    return files;
  }
}
