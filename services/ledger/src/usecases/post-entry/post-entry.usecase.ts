import { validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import { claimIdempotently, DataSource, EntityManager, withTransaction } from '@platform/persistence';
import { requestHash } from '../../domain/request-hash';
import { EntriesRepository, EntryRecord, toEntryRecord } from '../../persistence/entries.repository';
import { lockCallerAccounts, WrittenPosting } from '../../persistence/journal.repository';
import type { MoneyMovementLog } from '../money-movements';
import {
  balances,
  ENTRY_KIND,
  postEntryOrRefuse,
  postingsShapeValid,
  RawPosting,
  toPostings,
  validMetadata,
} from './postings';
import type { PostingSpreader } from './spread-postings';

export interface PostEntryCommand {
  entryId: string;
  kind: string;
  partnerId: string | null;
  postings: RawPosting[];
  metadata: Record<string, string>;
}

/**
 * Posts one balanced entry chosen by a caller (a transfer with its fee legs),
 * exactly once per caller id: a retry with the same body returns the original
 * entry, a different body is LEDGER_ID_REUSED. A partner account that would go
 * below zero refuses the whole entry.
 */
export class PostEntryUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly entries: EntriesRepository,
    private readonly movements: MoneyMovementLog,
    private readonly spreader: PostingSpreader,
  ) {}

  async execute(command: PostEntryCommand): Promise<EntryRecord> {
    this.validate(command);
    const hash = requestHash({
      kind: command.kind,
      partnerId: command.partnerId,
      postings: command.postings,
      metadata: command.metadata,
    });
    const { resource, replayed } = await withTransaction(this.dataSource, async (manager) => {
      // The lock serialises requests for one id: the claim never meets a twin, so only the hash is compared.
      await this.entries.lockEntryId(manager, command.entryId);
      return claimIdempotently({
        requestHash: hash,
        reusedError: 'LEDGER_ID_REUSED',
        find: () => this.entries.find(manager, command.entryId),
        // The entry as written, from the statement that wrote it: not read back.
        claim: async () => writtenEntry(command, hash, await this.postNew(manager, command, hash)),
      });
    });
    if (!replayed) this.movements.entryPosted(resource);
    return resource;
  }

  private validate(command: PostEntryCommand): void {
    const bad: string[] = [];
    if (!isUuid(command.entryId)) bad.push('entryId');
    if (!ENTRY_KIND.test(command.kind)) bad.push('kind');
    if (command.partnerId !== null && !isUuid(command.partnerId)) bad.push('partnerId');
    if (!postingsShapeValid(command.postings, 2)) bad.push('postings');
    if (!validMetadata(command.metadata)) bad.push('metadata');
    if (bad.length > 0) throw validationFailed(bad);
  }

  private async postNew(manager: EntityManager, command: PostEntryCommand, hash: string): Promise<WrittenPosting[]> {
    // Treasury and fee revenue legs go to the shard of the entry's partner (of the entry, without one).
    const spread = await this.spreader.spread(command.postings, command.partnerId ?? command.entryId);
    const accounts = await lockCallerAccounts(
      manager,
      spread.map((posting) => posting.accountId),
    );
    const postings = toPostings(spread, accounts, 'postings');
    if (!balances(postings)) throw validationFailed(['postings']);
    return postEntryOrRefuse(
      manager,
      {
        entryId: command.entryId,
        kind: command.kind,
        partnerId: command.partnerId,
        postings,
        metadata: command.metadata,
      },
      hash,
      accounts,
    );
  }
}

function writtenEntry(command: PostEntryCommand, hash: string, postings: WrittenPosting[]): EntryRecord {
  return toEntryRecord(
    {
      id: command.entryId,
      kind: command.kind,
      partner_id: command.partnerId,
      request_hash: hash,
      metadata: command.metadata,
      created_at: postings[0].created_at,
    },
    postings,
  );
}
