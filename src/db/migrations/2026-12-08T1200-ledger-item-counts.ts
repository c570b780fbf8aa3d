import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/**
 * The kept counts of the ledger search and the item master search (docs/paging.md), filled from
 * the rows that exist, so that their totalCounts are exact from the first search after the
 * upgrade: postings per company, facility, customer and UTC day of their creation; items per
 * company, customer, status and UTC day of their last update, under no facility ('').
 */

const DAY_MS = 24 * 60 * 60 * 1000;

const day = (column: string) => sql`${sql.ref(column)} / ${sql.lit(DAY_MS)}`;

export async function up(db: Kysely<any>): Promise<void> {
  await sql`insert into search_counts (company_id, counted, facility_id, customer_id, status, day, count)
    select company_id, ${'ledger'}, facility_id, customer_id, ${''}, ${day('created_at')}, count(*)
    from inventory_ledger
    group by company_id, facility_id, customer_id, ${day('created_at')}`.execute(db);
  await sql`insert into search_counts (company_id, counted, facility_id, customer_id, status, day, count)
    select company_id, ${'items'}, ${''}, customer_id, status, ${day('updated_at')}, count(*)
    from items
    group by company_id, customer_id, status, ${day('updated_at')}`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.deleteFrom('search_counts').where('counted', 'in', ['ledger', 'items']).execute();
}
