/**
 * Records finished attempts by group commit: every attempt finishing while a
 * write is running joins the next one, so one statement and one commit record
 * many attempts, their deliveries' next states and their endpoints' runs of
 * failures (DeliveriesRepository.recordAttempts). An attempt whose write
 * failed is not recorded: its delivery keeps its lease and is attempted again
 * once the lease runs out, with the same delivery id.
 */
import type {
  AttemptRecording,
  DeliveriesRepository,
  FailureRun,
  RecordedBatch,
} from '../../persistence/deliveries.repository';
import { GroupCommit } from '@platform/persistence';

/** Attempts recorded in one statement, at most. */
export const RECORD_BATCH_SIZE_MAX = 200;

export interface RecordedAttempt {
  /** False when another replica holds the delivery now (the attempt is kept as history only). */
  leaseHeld: boolean;
  /** The endpoint's run of failures after this batch, on the batch's last held attempt of that endpoint. */
  failureRun: FailureRun | null;
}

export interface AttemptRecorder {
  record(recording: AttemptRecording): Promise<RecordedAttempt>;
}

export class BatchedAttemptRecorder implements AttemptRecorder {
  private readonly group: GroupCommit<AttemptRecording, RecordedAttempt>;

  constructor(deliveries: Pick<DeliveriesRepository, 'recordAttempts'>, batchSizeMax = RECORD_BATCH_SIZE_MAX) {
    this.group = new GroupCommit(
      async (recordings) => perAttempt(recordings, await deliveries.recordAttempts(recordings)),
      batchSizeMax,
    );
  }

  record(recording: AttemptRecording): Promise<RecordedAttempt> {
    return this.group.submit(recording);
  }
}

/** Splits a batch's result by attempt: each endpoint's failure run goes with its last held attempt. */
export function perAttempt(recordings: readonly AttemptRecording[], batch: RecordedBatch): RecordedAttempt[] {
  const runs = new Map(batch.failureRuns.map((run) => [run.partnerId, run]));
  const lastHeld = new Map<string, number>();
  recordings.forEach((recording, index) => {
    if (batch.leaseHeld[index]) lastHeld.set(recording.claimed.partnerId, index);
  });
  return recordings.map((recording, index) => ({
    leaseHeld: batch.leaseHeld[index] === true,
    failureRun:
      lastHeld.get(recording.claimed.partnerId) === index ? (runs.get(recording.claimed.partnerId) ?? null) : null,
  }));
}
