// Proves the rules that keep codes away from an administrator a stolen
// credential just added: a new administrator waits unless it is the partner's
// first; the recipient is the earliest-registered administrator whose wait is
// over (a waiting one is skipped even when registered earlier); a waiting
// administrator can always be removed, the last one who may receive codes never.
import { randomUUID } from 'node:crypto';
import {
  CodeEligibility,
  chooseCodeRecipient,
  mayReceiveCodes,
  receivesCodesFrom,
  removalRefusal,
} from './code-eligibility';

const HOUR_MS = 60 * 60 * 1_000;
const WAITING_PERIOD_MS = 24 * HOUR_MS;
const now = new Date('2026-11-21T10:00:00.000Z');
const at = (offsetMs: number) => new Date(now.getTime() + offsetMs);

function admin(registeredOffsetMs: number, waitsUntilOffsetMs: number, adminId = randomUUID()): CodeEligibility {
  return { adminId, createdAt: at(registeredOffsetMs), receivesCodesFrom: at(waitsUntilOffsetMs) };
}

describe('receivesCodesFrom', () => {
  it("lets the partner's first administrator receive codes at once", () => {
    expect(receivesCodesFrom(now, 0, WAITING_PERIOD_MS)).toEqual(now);
  });

  it('makes every later administrator wait the waiting period', () => {
    expect(receivesCodesFrom(now, 1, WAITING_PERIOD_MS)).toEqual(at(WAITING_PERIOD_MS));
    expect(receivesCodesFrom(now, 7, 1_000)).toEqual(at(1_000));
  });

  it('refuses a waiting period that is not a positive integer (a wiring bug)', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) expect(() => receivesCodesFrom(now, 1, bad)).toThrow('waiting period');
  });
});

describe('mayReceiveCodes', () => {
  it('holds from the end of the waiting period on, to the millisecond', () => {
    const waiting = admin(-HOUR_MS, 1);
    expect(mayReceiveCodes(waiting, now)).toBe(false);
    expect(mayReceiveCodes(waiting, at(1))).toBe(true);
    expect(mayReceiveCodes(admin(-HOUR_MS, 0), now)).toBe(true);
  });
});

describe('chooseCodeRecipient', () => {
  it('chooses the earliest-registered administrator who may receive codes, whatever the input order', () => {
    const old = admin(-3 * HOUR_MS, -3 * HOUR_MS);
    const older = admin(-5 * HOUR_MS, -4 * HOUR_MS);
    expect(chooseCodeRecipient([old, older], now)).toBe(older);
    expect(chooseCodeRecipient([older, old], now)).toBe(older);
  });

  it('skips a waiting administrator even when registered earlier: an old one receives meanwhile', () => {
    const waiting = admin(-2 * HOUR_MS, WAITING_PERIOD_MS - 2 * HOUR_MS);
    const old = admin(-HOUR_MS, -HOUR_MS);
    expect(chooseCodeRecipient([waiting, old], now)).toBe(old);
  });

  it('turns to the new administrator once its waiting period is over', () => {
    const waiting = admin(-HOUR_MS, HOUR_MS);
    expect(chooseCodeRecipient([waiting], now)).toBeNull();
    expect(chooseCodeRecipient([waiting], at(HOUR_MS))).toBe(waiting);
  });

  it('breaks a tie of registration times by id', () => {
    const a = admin(-HOUR_MS, -HOUR_MS, '00000000-0000-4000-8000-000000000001');
    const b = admin(-HOUR_MS, -HOUR_MS, '00000000-0000-4000-8000-000000000002');
    expect(chooseCodeRecipient([b, a], now)).toBe(a);
  });

  it('finds nobody among no administrators', () => {
    expect(chooseCodeRecipient([], now)).toBeNull();
  });
});

describe('removalRefusal', () => {
  const old = admin(-48 * HOUR_MS, -48 * HOUR_MS);
  const alsoOld = admin(-30 * HOUR_MS, -6 * HOUR_MS);
  const waiting = admin(-HOUR_MS, WAITING_PERIOD_MS - HOUR_MS);

  it('removes an administrator who may receive codes while another who may remains', () => {
    expect(removalRefusal([old, alsoOld, waiting], old.adminId, now)).toBeNull();
    expect(removalRefusal([old, alsoOld, waiting], alsoOld.adminId, now)).toBeNull();
  });

  it('refuses removing the last administrator who may receive codes, even when waiting ones remain', () => {
    expect(removalRefusal([old, waiting], old.adminId, now)).toBe('ADMIN_LAST_CODE_RECIPIENT');
    expect(removalRefusal([old], old.adminId, now)).toBe('ADMIN_LAST_CODE_RECIPIENT');
  });

  it('always removes a waiting administrator: a partner throws out one it did not add', () => {
    expect(removalRefusal([old, waiting], waiting.adminId, now)).toBeNull();
    expect(removalRefusal([waiting], waiting.adminId, now)).toBeNull();
  });

  it("lets the old one go once the new one's waiting period is over", () => {
    expect(removalRefusal([old, waiting], old.adminId, waiting.receivesCodesFrom)).toBeNull();
  });

  it('answers ADMIN_NOT_FOUND for an id that is not among the active administrators', () => {
    expect(removalRefusal([old, waiting], randomUUID(), now)).toBe('ADMIN_NOT_FOUND');
  });
});
