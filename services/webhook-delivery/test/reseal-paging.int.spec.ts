// Proves that resealing webhook secrets walks the endpoints a bounded page at a time,
// against real PostgreSQL (a scratch database with this service's migrations, so the
// running stack's secrets are not touched), with this service's two sealed columns:
// - 30 endpoints with a secret and 20 with a previous one, all under the old key, and
//   12 whose secret opens with no key of the ring, placed first in key order: with
//   pages of 10, each call looks at no more than 10 values, the cursor carries the
//   walk from page to page and from one column to the next, the unopenable values
//   are passed over (they no longer hold up the rest), and one pass moves every
//   value that opens; each still opens to its secret, and the unopenable ones are
//   left as they were;
// - a second pass moves nothing, and each of its pages logs how many values did not
//   open, naming no value;
// - a cursor the service did not write is refused as a validation failure.
import { randomBytes } from 'node:crypto';
import { SealingKeyRing } from '@platform/crypto';
import { isAppError } from '@platform/errors';
import { recordingLogger } from '@platform/logger';
import { DataSource, resealColumns, ResealOutcome, ResealSecretsUseCase } from '@platform/persistence';
import { createScratchDatabase, ScratchDatabase } from '@platform/testing';
import { webhookDeliveryDataSource } from '../src/persistence/data-source';
import { ENDPOINT_SEALED_COLUMNS } from '../src/persistence/endpoints.repository';

const PAGE = 10;
const ENDPOINTS = 30;
const WITH_PREVIOUS = 20;
const UNOPENABLE = 12;
const CALLS_MAX = 50;
const key = () => randomBytes(32).toString('hex');
const oldRing = SealingKeyRing.parse(`old:${key()}`);
const lostRing = SealingKeyRing.parse(`lost:${key()}`);
const newRing = SealingKeyRing.parse(`new:${key()}`);
const ring = SealingKeyRing.parse(`new:${newRing.keysHex[0]},old:${oldRing.keysHex[0]}`);

let scratch: ScratchDatabase;
let db: DataSource;
/** partner id → [secret, previous secret or null] in plain text, for the endpoints that open. */
const plain = new Map<string, [string, string | null]>();

/** Ids sort in key order: `00…` (the unopenable) before `f0…` (the rest). */
const partnerId = (prefix: string, index: number) =>
  `${prefix}000000-0000-4000-8000-${String(index).padStart(12, '0')}`;

async function insertEndpoint(id: string, secretSealed: string, previousSealed: string | null): Promise<void> {
  await db.query(
    `INSERT INTO endpoints (partner_id, url, secret_sealed, previous_secret_sealed, previous_secret_expires_at)
     VALUES ($1, $2, $3, $4, CASE WHEN $4::text IS NULL THEN NULL ELSE now() + interval '1 day' END)`,
    [id, `https://hooks.example.com/${id}`, secretSealed, previousSealed],
  );
}

beforeAll(async () => {
  scratch = await createScratchDatabase('webhook_reseal');
  db = await webhookDeliveryDataSource(scratch.url).initialize();
  await db.runMigrations({ transaction: 'each' });
  for (let index = 0; index < UNOPENABLE; index += 1)
    await insertEndpoint(partnerId('00', index), lostRing.seal(`lost-${index}`), null);
  for (let index = 0; index < ENDPOINTS; index += 1) {
    const secrets: [string, string | null] = [
      `whsec_${index}`,
      index < WITH_PREVIOUS ? `whsec_previous_${index}` : null,
    ];
    plain.set(partnerId('f0', index), secrets);
    await insertEndpoint(
      partnerId('f0', index),
      oldRing.seal(secrets[0]),
      secrets[1] === null ? null : oldRing.seal(secrets[1]),
    );
  }
});

afterAll(async () => {
  await db?.destroy();
  await scratch?.drop();
});

it('moves every value that opens in one pass of bounded pages, passing over those that do not', async () => {
  const outcomes: ResealOutcome[] = [];
  let after = '';
  do {
    const outcome = await resealColumns(db, ring, ENDPOINT_SEALED_COLUMNS, PAGE, after);
    outcomes.push(outcome);
    after = outcome.nextAfter;
  } while (after !== '' && outcomes.length < CALLS_MAX);

  expect(after).toBe('');
  const values = ENDPOINTS + WITH_PREVIOUS;
  expect(outcomes.every((outcome) => outcome.resealed + outcome.unopenable <= PAGE)).toBe(true);
  expect(outcomes.length).toBeGreaterThanOrEqual(Math.ceil((values + UNOPENABLE) / PAGE));
  expect(outcomes.reduce((sum, outcome) => sum + outcome.resealed, 0)).toBe(values);
  expect(outcomes.reduce((sum, outcome) => sum + outcome.unopenable, 0)).toBe(UNOPENABLE);
  expect(outcomes[outcomes.length - 1].remaining).toBe(UNOPENABLE);

  const rows = (await db.query(
    'SELECT partner_id, secret_sealed, previous_secret_sealed FROM endpoints ORDER BY partner_id',
  )) as Array<{ partner_id: string; secret_sealed: string; previous_secret_sealed: string | null }>;
  for (const row of rows.slice(0, UNOPENABLE)) expect(row.secret_sealed.startsWith('v2.lost.')).toBe(true);
  for (const row of rows.slice(UNOPENABLE)) {
    const [secret, previous] = plain.get(row.partner_id) ?? [];
    expect(row.secret_sealed.startsWith('v2.new.')).toBe(true);
    expect(newRing.open(row.secret_sealed)).toBe(secret);
    expect(row.previous_secret_sealed === null ? null : newRing.open(row.previous_secret_sealed)).toBe(previous);
  }
});

it('moves nothing on a second pass, whose first page holds only values that do not open', async () => {
  const { logger, lines } = recordingLogger();
  const useCase = new ResealSecretsUseCase(db, ring, ENDPOINT_SEALED_COLUMNS, logger);
  const first = await useCase.execute({ batchSize: PAGE, after: '' });
  expect(first).toMatchObject({ currentKeyId: 'new', resealed: 0, remaining: UNOPENABLE });
  expect(first.nextAfter).not.toBe('');
  const second = await useCase.execute({ batchSize: PAGE, after: first.nextAfter });
  expect(second).toEqual({ currentKeyId: 'new', resealed: 0, remaining: UNOPENABLE, nextAfter: '' });
  expect(lines.filter((line) => line.level === 'error').map((line) => line.fields.unopenable)).toEqual([
    PAGE,
    UNOPENABLE - PAGE,
  ]);
  expect(JSON.stringify(lines)).not.toMatch(/v2\.|whsec_|lost-/);
});

it.each(['garbage', '7:00000000-0000-4000-8000-000000000000', '-1:x', ':x'])('refuses the cursor %s', async (after) => {
  const refusal = await resealColumns(db, ring, ENDPOINT_SEALED_COLUMNS, PAGE, after).catch((error: unknown) => error);
  expect(isAppError(refusal) && refusal.code).toBe('VALIDATION_FAILED');
});
