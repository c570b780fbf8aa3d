import type { Db } from '../../db/database.js';

/** The SQL of the ledger's item index kept behind the writes on SQLite (ledger-items.ts). */

/** How many ledger ids there are after the mark: the rows the item index does not hold yet. */
export async function countAfterMark(db: Db): Promise<number> {
  const { mark, last } = await db
    .selectFrom('inventory_ledger_items_mark')
    .select((eb) => [
      'last_ledger_id as mark',
      eb.selectFrom('inventory_ledger').select((inner) => inner.fn.max('id').as('last')).as('last'),
    ])
    .where('id', '=', 1)
    .executeTakeFirstOrThrow();
  return Math.max(0, (last ?? 0) - mark);
}

/**
 * Copies every ledger row after the mark into inventory_ledger_items, in that table's order so
 * that each of its pages is written once, and moves the mark to the last; answers how many rows.
 */
export async function indexLedgerItemsAfterMark(trx: Db): Promise<number> {
  const { last_ledger_id: mark } = await trx
    .selectFrom('inventory_ledger_items_mark')
    .select('last_ledger_id')
    .where('id', '=', 1)
    .executeTakeFirstOrThrow();
  const { last } = await trx
    .selectFrom('inventory_ledger')
    .select((eb) => eb.fn.max('id').as('last'))
    .executeTakeFirstOrThrow();
  if (last === null || last <= mark) return 0;
  await trx
    .insertInto('inventory_ledger_items')
    .columns(['company_id', 'facility_id', 'item_id', 'created_at', 'ledger_id'])
    .expression((eb) =>
      eb
        .selectFrom('inventory_ledger')
        .select(['company_id', 'facility_id', 'item_id', 'created_at', 'id'])
        .where('id', '>', mark)
        .where('id', '<=', last)
        .orderBy('company_id')
        .orderBy('facility_id')
        .orderBy('item_id')
        .orderBy('created_at')
        .orderBy('id'),
    )
    .execute();
  await trx.updateTable('inventory_ledger_items_mark').set({ last_ledger_id: last }).where('id', '=', 1).execute();
  return last - mark;
}
