/** Wires dependencies into a gRPC server. No I/O here beyond what is passed in. */
import { createGrpcServer, GrpcServer, TlsMaterial } from '@platform/grpc';
import type { Logger } from '@platform/logger';
import { DataSource, DurableScheduler, ListAuditRecordsUseCase, SchedulerOptions } from '@platform/persistence';
import { walletRegistry } from '@platform/proto';
import type { AdminNoticeSender } from './adapters/notifier/admin-notice-sender';
import { adminNoticeWorker } from './workers/admin-notice.worker';
import type { ApprovalCodeSender } from './adapters/notifier/approval-code-sender';
import type { AdminNotice } from './domain/admin-notice';
import { walletRegistryAdminHandlers } from './grpc/wallet-registry-admin.handlers';
import { walletRegistrySandboxHandlers } from './grpc/wallet-registry-sandbox.handlers';
import { walletRegistryHandlers } from './grpc/wallet-registry.handlers';
import { AdminNoticesRepository } from './persistence/admin-notices.repository';
import { AdministratorsRepository } from './persistence/administrators.repository';
import { PartnerSettingsRepository } from './persistence/partner-settings.repository';
import { WalletCodesRepository } from './persistence/wallet-codes.repository';
import { WalletsRepository } from './persistence/wallets.repository';
import { ConfigurePartnerUseCase } from './usecases/configure-partner/configure-partner.usecase';
import { ConfirmWalletUseCase } from './usecases/confirm-wallet/confirm-wallet.usecase';
import { GetCodeRecipientUseCase } from './usecases/get-code-recipient/get-code-recipient.usecase';
import { GetWalletStatusUseCase } from './usecases/get-wallet-status/get-wallet-status.usecase';
import { ListAdminsUseCase } from './usecases/list-admins/list-admins.usecase';
import { ListWalletsUseCase } from './usecases/list-wallets/list-wallets.usecase';
import { RegisterAdminUseCase } from './usecases/register-admin/register-admin.usecase';
import { RegisterWalletUseCase } from './usecases/register-wallet/register-wallet.usecase';
import { RemoveAdminUseCase } from './usecases/remove-admin/remove-admin.usecase';
import { ReviewWalletUseCase } from './usecases/review-wallet/review-wallet.usecase';
import { RevokeWalletUseCase } from './usecases/revoke-wallet/revoke-wallet.usecase';
import { SendAdminNoticesUseCase } from './usecases/send-admin-notices/send-admin-notices.usecase';
import { WALLET_REGISTRY_ACCESS } from './grpc/access';
import { SERVICE_NAME } from './persistence/data-source';

export interface ServerDependencies {
  dataSource: DataSource;
  logger: Logger;
  /** This service's mutual-TLS material (its identity), shared with its clients. */
  tls: TlsMaterial;
  mode: 'sandbox' | 'production';
  codeHashKeyHex: string;
  codeTtlMs: number;
  /** The administrators' waiting period, already scaled by SANDBOX_TIME_SCALE in sandbox mode. */
  adminWaitingPeriodMs: number;
  approvalCodeSender: ApprovalCodeSender;
  adminNoticeSender: AdminNoticeSender;
  /** The timer that sends the administrator-change notices. */
  noticeScheduler: SchedulerOptions;
  now?: () => Date;
}

/** The gRPC server, and the scheduler of the notices (the entry point starts and stops it). */
export function createServer(deps: ServerDependencies): {
  server: GrpcServer;
  noticeScheduler: DurableScheduler<AdminNotice>;
} {
  const { dataSource, logger } = deps;
  const now = deps.now ?? (() => new Date());
  const server = createGrpcServer(logger, deps.tls);
  const settings = new PartnerSettingsRepository(dataSource);
  const admins = new AdministratorsRepository();
  const wallets = new WalletsRepository();
  const codes = new WalletCodesRepository();
  const notices = new AdminNoticesRepository(dataSource);
  const reviewWallet = new ReviewWalletUseCase(dataSource, wallets, logger);
  server.add(
    walletRegistry.WalletRegistryAdminService,
    walletRegistryAdminHandlers({
      configurePartner: new ConfigurePartnerUseCase(dataSource, settings),
      reviewWallet,
      listAuditRecords: new ListAuditRecordsUseCase(dataSource, SERVICE_NAME),
    }),
    WALLET_REGISTRY_ACCESS.ADMIN,
  );
  server.add(
    walletRegistry.WalletRegistryService,
    walletRegistryHandlers({
      registerAdmin: new RegisterAdminUseCase(
        dataSource,
        { settings, admins, notices },
        { waitingPeriodMs: deps.adminWaitingPeriodMs, now },
        logger,
      ),
      listAdmins: new ListAdminsUseCase(dataSource, admins),
      removeAdmin: new RemoveAdminUseCase(dataSource, { settings, admins, codes, notices }, now, logger),
      registerWallet: new RegisterWalletUseCase(
        dataSource,
        { wallets, codes, admins },
        deps.approvalCodeSender,
        {
          codeHashKeyHex: deps.codeHashKeyHex,
          codeTtlMs: deps.codeTtlMs,
          now,
        },
        logger,
      ),
      confirmWallet: new ConfirmWalletUseCase(
        dataSource,
        { wallets, codes },
        { codeHashKeyHex: deps.codeHashKeyHex, now },
        logger,
      ),
      listWallets: new ListWalletsUseCase(dataSource, wallets),
      revokeWallet: new RevokeWalletUseCase(dataSource, { wallets, codes }, logger),
      getWalletStatus: new GetWalletStatusUseCase(dataSource, wallets),
      getCodeRecipient: new GetCodeRecipientUseCase(dataSource, admins, now),
    }),
    WALLET_REGISTRY_ACCESS.PARTNER,
  );
  server.add(
    walletRegistry.WalletRegistrySandboxService,
    walletRegistrySandboxHandlers({
      reviewWallet: deps.mode === 'sandbox' ? reviewWallet : null,
    }),
    WALLET_REGISTRY_ACCESS.SANDBOX,
  );
  const sendNotices = new SendAdminNoticesUseCase(notices, deps.adminNoticeSender, logger);
  return {
    server,
    noticeScheduler: adminNoticeWorker(dataSource, sendNotices, deps.adminNoticeSender, logger, deps.noticeScheduler),
  };
}
