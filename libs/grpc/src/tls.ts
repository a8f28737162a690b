/**
 * Mutual TLS material of one process: the CA bundle it trusts, its own
 * certificate and its key, read from three files and read again whenever they
 * change, so certificates rotate without a restart (cert-manager rewrites the
 * mounted Secret; the local stack scripts rewrite the files). Both the gRPC
 * server and every client of the process draw on the same material.
 *
 * Loading refuses what would not work or would not be safe: a certificate that
 * does not match its key, is not issued by the trusted CA, is outside its
 * validity, or names no identity (or another identity than the process's own).
 * At start that is fatal; on reload the previous material is kept and a warning
 * logged until the files are consistent again (a rotation writes the
 * certificate and the key one after the other).
 */
import { createHash, createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import type { PeerCertificate } from 'node:tls';
import { ChannelCredentials, experimental, ServerCredentials } from '@grpc/grpc-js';
import type { Logger } from '@platform/logger';
import { identityFromSubjectAltName, identityOfPeer } from './identity';

type CaListener = experimental.CaCertificateUpdateListener;
type IdentityListener = experimental.IdentityCertificateUpdateListener;

export interface TlsFiles {
  caFile: string;
  certFile: string;
  keyFile: string;
}

export interface TlsOptions {
  logger: Logger;
  /** How often the files are checked for a change. */
  reloadIntervalMs?: number;
  /** The identity the certificate must name (the process's own); any platform identity when absent. */
  expectedIdentity?: string;
  nowMs?: () => number;
  /** How long a server keeps a peer's connection (default 30 minutes, at most an hour); see ConnectionAge. */
  connectionAge?: Partial<ConnectionAge>;
}

/**
 * How long a peer may go on using one connection, and so the certificate it
 * presented when it opened it. A server checks a client's certificate (issuer,
 * validity) at the handshake only: without a bound, a client whose certificate
 * expired, or whose CA was dropped from the trusted bundle, would keep being
 * served over a connection it opened before. The server sends GOAWAY once a
 * connection is `maxMs` old (grpc-js adds up to 10 % of jitter), lets calls in
 * flight finish for `graceMs`, then closes it; the client opens a new one with
 * its current certificate, checked against the server's current CA.
 */
export interface ConnectionAge {
  maxMs: number;
  graceMs: number;
}

/** What a client needs to reach one service: credentials that accept only that service's identity. */
export interface ClientTls {
  credentials: ChannelCredentials;
  /** The identity the server must present; also sent as the TLS server name. */
  serverIdentity: string;
}

export const TLS_RELOAD_INTERVAL_MS_DEFAULT = 10_000;
export const CONNECTION_AGE_MS_DEFAULT = 30 * 60_000;
/** An identity the platform no longer trusts is served at most this long (plus jitter and grace). */
export const CONNECTION_AGE_MS_MAX = 60 * 60_000;
export const CONNECTION_AGE_GRACE_MS_DEFAULT = 30_000;
export const CONNECTION_AGE_GRACE_MS_MAX = 5 * 60_000;
/** A certificate file holds the leaf and perhaps its intermediates; a CA bundle a few roots. */
const CERTIFICATES_PER_FILE_MAX = 10;
const TLS_FILE_BYTES_MAX = 256 * 1024;
/** Warn this long before the certificate in use expires without having been replaced. */
const EXPIRY_WARNING_MS = 24 * 60 * 60_000;

interface Material {
  ca: Buffer;
  cert: Buffer;
  key: Buffer;
  identity: string;
  notAfterMs: number;
  fingerprint: string;
}

export class TlsMaterialError extends Error {
  constructor(files: TlsFiles, reason: string) {
    super(`TLS material (${files.certFile}) refused: ${reason}`);
    this.name = 'TlsMaterialError';
  }
}

function readBounded(file: string): Buffer {
  const content = readFileSync(file);
  if (content.length > TLS_FILE_BYTES_MAX) throw new Error(`${file} is larger than ${TLS_FILE_BYTES_MAX} bytes`);
  return content;
}

function certificatesIn(pem: Buffer, file: string): X509Certificate[] {
  const blocks = pem.toString('utf8').match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new Error(`${file} holds no certificate`);
  if (blocks.length > CERTIFICATES_PER_FILE_MAX)
    throw new Error(`${file} holds more than ${CERTIFICATES_PER_FILE_MAX} certificates`);
  return blocks.map((block) => new X509Certificate(block));
}

/** Reads and checks the three files; throws an Error saying what is wrong (never quoting the key). */
function readMaterial(files: TlsFiles, expectedIdentity: string | undefined, nowMs: number): Material {
  const ca = readBounded(files.caFile);
  const cert = readBounded(files.certFile);
  const key = readBounded(files.keyFile);
  const authorities = certificatesIn(ca, files.caFile);
  const [leaf, ...chain] = certificatesIn(cert, files.certFile);
  if (!leaf.checkPrivateKey(createPrivateKey(key))) throw new Error('the certificate does not match the key');
  const issuers = [...chain, ...authorities];
  if (!issuers.some((issuer) => leaf.checkIssued(issuer) && leaf.verify(issuer.publicKey))) {
    throw new Error('the certificate is not issued by the trusted CA');
  }
  const notBeforeMs = Date.parse(leaf.validFrom);
  const notAfterMs = Date.parse(leaf.validTo);
  if (!(notBeforeMs <= nowMs && nowMs < notAfterMs))
    throw new Error(`the certificate is valid from ${leaf.validFrom} to ${leaf.validTo}, not now`);
  const identity = identityFromSubjectAltName(leaf.subjectAltName);
  if (!identity) throw new Error('the certificate names no platform identity (URI SAN spiffe://platform/<name>)');
  if (expectedIdentity && identity !== expectedIdentity)
    throw new Error(`the certificate names ${identity}, not ${expectedIdentity}`);
  return { ca, cert, key, identity, notAfterMs, fingerprint: leaf.fingerprint256 };
}

/** Changes when any of the files is replaced or rewritten. */
function filesSignature(files: TlsFiles): string {
  return [files.caFile, files.certFile, files.keyFile]
    .map((file) => {
      try {
        const stats = statSync(file);
        return `${stats.ino}:${stats.size}:${stats.mtimeMs}`;
      } catch {
        return 'missing';
      }
    })
    .join('|');
}

/** The connection age a server enforces; throws RangeError outside the bounds. */
function connectionAgeOf(requested: Partial<ConnectionAge> = {}): ConnectionAge {
  const age = {
    maxMs: requested.maxMs ?? CONNECTION_AGE_MS_DEFAULT,
    graceMs: requested.graceMs ?? CONNECTION_AGE_GRACE_MS_DEFAULT,
  };
  if (!Number.isInteger(age.maxMs) || age.maxMs <= 0 || age.maxMs > CONNECTION_AGE_MS_MAX) {
    throw new RangeError(
      `the maximum connection age is a whole number of milliseconds from 1 to ${CONNECTION_AGE_MS_MAX}, not ${age.maxMs}`,
    );
  }
  if (!Number.isInteger(age.graceMs) || age.graceMs <= 0 || age.graceMs > CONNECTION_AGE_GRACE_MS_MAX) {
    throw new RangeError(
      `the connection age grace is a whole number of milliseconds from 1 to ${CONNECTION_AGE_GRACE_MS_MAX}, not ${age.graceMs}`,
    );
  }
  return age;
}

function caFingerprint(material: Material): string {
  return createHash('sha256').update(material.ca).digest('hex');
}

/**
 * The process's TLS material, kept current. Implements grpc-js's certificate
 * provider interface, so grpc-js builds every new connection's secure context
 * from the latest files; connections already open keep theirs.
 */
export class TlsMaterial implements experimental.CertificateProvider {
  private material: Material;
  private signature: string;
  private refusedSignature: string | null = null;
  private expiryWarned = false;
  private readonly caListeners = new Set<CaListener>();
  private readonly identityListeners = new Set<IdentityListener>();
  private readonly clients = new Map<string, ClientTls>();
  private serverCredentialsCache: ServerCredentials | null = null;
  private readonly timer: NodeJS.Timeout;
  private readonly nowMs: () => number;
  /** How long the process's gRPC server keeps a peer's connection before the peer must handshake again. */
  readonly connectionAge: ConnectionAge;

  /** Reads the files now; throws TlsMaterialError when they are unusable, RangeError for a connection age out of bounds. */
  constructor(
    readonly files: TlsFiles,
    private readonly options: TlsOptions,
  ) {
    this.nowMs = options.nowMs ?? Date.now;
    this.connectionAge = connectionAgeOf(options.connectionAge);
    this.signature = filesSignature(files);
    try {
      this.material = readMaterial(files, options.expectedIdentity, this.nowMs());
    } catch (error) {
      throw new TlsMaterialError(files, (error as Error).message);
    }
    this.timer = setInterval(() => this.reloadIfChanged(), options.reloadIntervalMs ?? TLS_RELOAD_INTERVAL_MS_DEFAULT);
    this.timer.unref();
  }

  get identity(): string {
    return this.material.identity;
  }

  get notAfter(): Date {
    return new Date(this.material.notAfterMs);
  }

  /** Server side: a client must present a certificate from the trusted CA, within its validity. */
  serverCredentials(): ServerCredentials {
    // grpc-js names this function's first two parameters in the other order than its
    // class does; one provider serving both makes that harmless.
    this.serverCredentialsCache ??= experimental.createCertificateProviderServerCredentials(this, this, true);
    return this.serverCredentialsCache;
  }

  /** Client side, towards one service: accepts only a server certificate naming `serverIdentity`. */
  client(serverIdentity: string): ClientTls {
    let client = this.clients.get(serverIdentity);
    if (!client) {
      const checkServerIdentity = (_host: string, certificate: PeerCertificate): Error | undefined => {
        const presented = identityOfPeer(certificate);
        return presented === serverIdentity
          ? undefined
          : new Error(`server identity is ${presented ?? 'none'}, expected ${serverIdentity}`);
      };
      client = {
        credentials: experimental.createCertificateProviderChannelCredentials(this, this, { checkServerIdentity }),
        serverIdentity,
      };
      this.clients.set(serverIdentity, client);
    }
    return client;
  }

  /** Checks the files now (the timer does this every reload interval). True when new material was taken. */
  reloadIfChanged(): boolean {
    this.warnWhenExpiring();
    const signature = filesSignature(this.files);
    if (signature === this.signature) return false;
    let material: Material;
    try {
      material = readMaterial(this.files, this.options.expectedIdentity ?? this.material.identity, this.nowMs());
    } catch (error) {
      if (this.refusedSignature !== signature) {
        this.refusedSignature = signature;
        this.options.logger.warn('tls material changed but is not usable; keeping the previous', {
          reason: (error as Error).message,
        });
      }
      return false;
    }
    this.signature = signature;
    this.refusedSignature = null;
    const caChanged = caFingerprint(material) !== caFingerprint(this.material);
    const identityChanged = material.fingerprint !== this.material.fingerprint;
    this.material = material;
    this.expiryWarned = false;
    if (caChanged) for (const listener of this.caListeners) listener({ caCertificate: material.ca });
    if (identityChanged)
      for (const listener of this.identityListeners) listener({ certificate: material.cert, privateKey: material.key });
    this.options.logger.info('tls material reloaded', {
      identity: material.identity,
      notAfter: new Date(material.notAfterMs).toISOString(),
      certificateSha256: material.fingerprint,
      caChanged,
    });
    return caChanged || identityChanged;
  }

  private warnWhenExpiring(): void {
    const remainingMs = this.material.notAfterMs - this.nowMs();
    if (remainingMs > EXPIRY_WARNING_MS || this.expiryWarned) return;
    this.expiryWarned = true;
    const fields = { identity: this.material.identity, notAfter: new Date(this.material.notAfterMs).toISOString() };
    if (remainingMs <= 0)
      this.options.logger.error('service certificate expired and was not replaced: peers refuse this process', fields);
    else this.options.logger.warn('service certificate expires within a day and was not replaced yet', fields);
  }

  close(): void {
    clearInterval(this.timer);
    this.caListeners.clear();
    this.identityListeners.clear();
  }

  addCaCertificateListener(listener: CaListener): void {
    this.caListeners.add(listener);
    process.nextTick(listener, { caCertificate: this.material.ca });
  }

  removeCaCertificateListener(listener: CaListener): void {
    this.caListeners.delete(listener);
  }

  addIdentityCertificateListener(listener: IdentityListener): void {
    this.identityListeners.add(listener);
    process.nextTick(listener, { certificate: this.material.cert, privateKey: this.material.key });
  }

  removeIdentityCertificateListener(listener: IdentityListener): void {
    this.identityListeners.delete(listener);
  }
}

/** The TLS variables of a service's configuration (libs/config `commonServiceEnv`). */
export interface TlsSettings {
  TLS_CA_FILE: string;
  TLS_CERT_FILE: string;
  TLS_KEY_FILE: string;
  TLS_RELOAD_INTERVAL_MS: number;
  GRPC_MAX_CONNECTION_AGE_MS?: number;
  GRPC_MAX_CONNECTION_AGE_GRACE_MS?: number;
}

/**
 * The TLS material of the service `identity` from its configuration, with the
 * connection age its server enforces (the identity a peer proved is trusted
 * that long). Throws TlsMaterialError (the service does not start) when the
 * files are unusable or name another identity.
 */
export function loadServiceTls(settings: TlsSettings, identity: string, logger: Logger): TlsMaterial {
  return new TlsMaterial(
    { caFile: settings.TLS_CA_FILE, certFile: settings.TLS_CERT_FILE, keyFile: settings.TLS_KEY_FILE },
    {
      logger: logger.child({ context: 'TlsMaterial' }),
      reloadIntervalMs: settings.TLS_RELOAD_INTERVAL_MS,
      expectedIdentity: identity,
      connectionAge: { maxMs: settings.GRPC_MAX_CONNECTION_AGE_MS, graceMs: settings.GRPC_MAX_CONNECTION_AGE_GRACE_MS },
    },
  );
}
