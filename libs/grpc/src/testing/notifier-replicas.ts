/**
 * For specs of the client's channel (balancing, reconnecting): notifier
 * replicas over mutual TLS on this machine, each counting the calls it
 * serves, and a payouts caller's TLS from the same throwaway CA. Never used
 * by a service.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Logger } from '@platform/logger';
import { notifier } from '@platform/proto';
import { createGrpcServer, GrpcServer } from '../server';
import { TlsMaterial } from '../tls';
import { TestCertificateAuthority } from './test-certificates';

export const silentLogger = { info() {}, warn() {}, error() {}, debug() {} } as unknown as Logger;
(silentLogger as unknown as { child: () => Logger }).child = () => silentLogger;

/** A SendMessage request the replicas answer. */
export const SEND_MESSAGE_REQUEST = {
  idempotencyKey: 'k',
  partnerId: 'p',
  kind: 'wallet_approval',
  recipient: 'a@example.com',
  subjectType: 'wallet',
  subjectId: 's',
  variables: {},
};

export interface NotifierReplica {
  server: GrpcServer;
  port: number;
  served: number;
}

/** The notifier's server TLS and payouts' client TLS from one throwaway CA; close() removes it all. */
export interface ReplicaTls {
  serverTls: TlsMaterial;
  clientTls: TlsMaterial;
  close(): void;
}

export function createReplicaTls(folderPrefix: string): ReplicaTls {
  const dir = mkdtempSync(path.join(tmpdir(), folderPrefix));
  const authority = TestCertificateAuthority.create(path.join(dir, 'ca'));
  const serverTls = new TlsMaterial(authority.issue('notifier'), {
    logger: silentLogger,
    expectedIdentity: 'notifier',
  });
  const clientTls = new TlsMaterial(authority.issue('payouts'), { logger: silentLogger, expectedIdentity: 'payouts' });
  return {
    serverTls,
    clientTls,
    close: () => {
      serverTls.close();
      clientTls.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A notifier replica on `port` (0: any free port), answering every SendMessage from payouts. */
export async function startNotifierReplica(serverTls: TlsMaterial, port: number): Promise<NotifierReplica> {
  const server = createGrpcServer(silentLogger, serverTls);
  const replica = { server, port, served: 0 };
  server.add(
    notifier.NotifierService,
    {
      sendMessage: async () => {
        replica.served += 1;
        return { messageId: 'm-1', maskedRecipient: 'a***@example.com', replayed: false };
      },
    },
    { sendMessage: ['payouts'] },
  );
  replica.port = await server.listen(port);
  return replica;
}
