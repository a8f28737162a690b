// The notifier's record of a transfer's confirmation code: the message sent about it
// (subject id = the transfer's, idempotency key naming its confirmation), kept for good
// and listed newest first in the partner's sandbox outbox. Each message gets a clone id of
// its own (roles message_a…); its idempotency key becomes the clone's through the
// confirmation's clone id, so the key stays unique.
import { literal } from '../lib/clone-sql.js';
import { lettered, tableExists } from './clone.mjs';

export const notifierMessages = {
  name: 'notifier messages about the template',
  database: 'svc_notifier',
  required: true,
  async applies(client, template) {
    if (!(await tableExists(client, 'messages'))) return false;
    const { rows } = await client.query('SELECT 1 FROM messages WHERE subject_id = $1 LIMIT 1', [template.subjectId]);
    return rows.length > 0;
  },
  async extraIds(client, template) {
    const { rows } = await client.query(
      'SELECT id::text AS id FROM messages WHERE subject_id = $1 ORDER BY created_at, id',
      [template.subjectId],
    );
    return lettered(
      'message',
      rows.map((row) => row.id),
    );
  },
  async prepare(client, template, ids) {
    return { messageIds: ids.filter((id) => id.role.startsWith('message_')).map((id) => id.id) };
  },
  async plans(template, tag, prepared) {
    return [
      {
        table: 'messages',
        where: `tpl.subject_id = ${literal(template.subjectId)}::uuid`,
        expectedRows: prepared.messageIds.length,
        requiredColumns: ['id', 'subject_id', 'partner_id', 'idempotency_key', 'created_at'],
        orderBy: 's.i, tpl.id',
      },
    ];
  },
};
