/**
 * The fee schedules a batch of quotes last read, by partner: as stored (raw, what the checked
 * insert compares) and as checked (what prices), kept only when they price (storedFeeSchedule
 * accepts them), so a known schedule is not checked again for each item. A quote priced from one is stored only if the
 * partner's stored schedule is still that one when its insert runs (the insert checks it), so a
 * schedule known here is a guess that saves a read, never an authority: a wrong guess costs its
 * items a fresh read, not a wrong fee. Bounded: past `partnersMax` the partner known longest is
 * forgotten first.
 */
import type { FeeSchedule, RawFeeSchedule } from '../../domain/fee-schedule';

/** One partner's schedule as its read found it (`raw`) and as storedFeeSchedule accepted it (`schedule`). */
export interface KnownFeeSchedule {
  raw: RawFeeSchedule;
  schedule: FeeSchedule;
}

/** 10,000 partners' schedules are about a megabyte. */
export const KNOWN_FEE_SCHEDULES_MAX = 10_000;

export class KnownFeeSchedules {
  private readonly schedules = new Map<string, KnownFeeSchedule>();

  constructor(private readonly partnersMax = KNOWN_FEE_SCHEDULES_MAX) {
    if (!Number.isSafeInteger(partnersMax) || partnersMax < 1)
      throw new Error(`partnersMax must be a positive integer, not ${partnersMax}`);
  }

  get(partnerId: string): KnownFeeSchedule | undefined {
    return this.schedules.get(partnerId);
  }

  /** Remembers the schedule just read for a partner (a fresh read replaces what was known). */
  remember(partnerId: string, schedule: KnownFeeSchedule): void {
    this.schedules.delete(partnerId);
    if (this.schedules.size >= this.partnersMax) this.forget(this.schedules.keys().next().value as string);
    this.schedules.set(partnerId, schedule);
  }

  forget(partnerId: string): void {
    this.schedules.delete(partnerId);
  }

  get size(): number {
    return this.schedules.size;
  }
}
