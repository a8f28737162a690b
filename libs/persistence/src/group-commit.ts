/**
 * Group commit: callers submit one item each and wait for it to be written;
 * items submitted while a write is running (or in the same tick) are written
 * together by the next one, at most `batchSizeMax` at a time. Under load one
 * statement and one commit serve many items; alone, an item waits for nobody
 * (the write starts on the next tick).
 *
 * A failed write rejects every item in it; the next batch is tried afresh.
 */
export type BatchWrite<Item, Outcome> = (items: readonly Item[]) => Promise<readonly Outcome[]>;

interface Waiting<Item, Outcome> {
  item: Item;
  resolve: (outcome: Outcome) => void;
  reject: (error: unknown) => void;
}

export class GroupCommit<Item, Outcome> {
  private queue: Array<Waiting<Item, Outcome>> = [];
  private writing = false;
  private scheduled = false;

  constructor(
    private readonly write: BatchWrite<Item, Outcome>,
    private readonly batchSizeMax: number,
  ) {
    if (!Number.isInteger(batchSizeMax) || batchSizeMax < 1)
      throw new Error(`batchSizeMax must be a positive integer, got ${batchSizeMax}`);
  }

  submit(item: Item): Promise<Outcome> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  /** Items waiting or being written. */
  pendingCount(): number {
    return this.queue.length;
  }

  private schedule(): void {
    if (this.writing || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.writing || this.queue.length === 0) return;
    this.writing = true;
    const batch = this.queue.splice(0, this.batchSizeMax);
    try {
      const outcomes = await this.write(batch.map((waiting) => waiting.item));
      if (outcomes.length !== batch.length)
        throw new Error(`batch write answered ${outcomes.length} outcomes for ${batch.length} items`);
      batch.forEach((waiting, index) => waiting.resolve(outcomes[index] as Outcome));
    } catch (error) {
      for (const waiting of batch) waiting.reject(error);
    } finally {
      this.writing = false;
      if (this.queue.length > 0) this.schedule();
    }
  }
}
