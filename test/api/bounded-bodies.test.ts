import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_PROBLEMS } from '../../src/lib/validation-messages.js';
import { ReceiptLineSchema } from '../../src/modules/receipts/receipts.schemas.js';
import { useTestApp } from '../helpers/app.js';
import { describeEachDialect } from '../helpers/dialects.js';
import { createWorld, problems, receiptBody, uniqueId, type World } from '../helpers/factories.js';
import { RECEIPT_ACK_SEARCH, RECEIPT_IMPORT } from '../helpers/paths.js';

/**
 * The work a body costs is bounded, whatever it holds: an array over its `maxItems` is refused
 * without its elements being looked at, a text over its `maxLength` is refused for its length and
 * not read, a body with thousands of problems answers the first 100, and what the date checks
 * remember never holds a text longer than a date field takes (so that a stream of huge values
 * leaves the heap as it was). Refused imports write their failure ACK: both databases.
 */

const MiB = 1024 * 1024;

describeEachDialect('bounded work per body', (dialect) => {
  const ctx = useTestApp(dialect);
  let world: World;

  beforeAll(async () => {
    world = await createWorld(ctx().database.db, ctx().clock);
  });

  const acksOf = async (poNo: string) => {
    const response = await ctx().post(RECEIPT_ACK_SEARCH, { ...receiptIds(), PONo: poNo }, world.customer);
    return (response.json() as { ACK: { error: string } }[]).map((record) => record.ACK.error);
  };
  const receiptIds = () => {
    const { CompanyID, CustomerID, FacilityID } = receiptBody({ tenant: world.tenant });
    return { CompanyID, CustomerID, FacilityID };
  };

  it('an array of a million elements over its maxItems is refused for its size alone, its elements unread, with a failure ACK', async () => {
    const poNo = uniqueId('PO');
    // Each element is wrong (a number, not a line): read, each would be a problem of its own.
    const payload = JSON.stringify(receiptBody({ tenant: world.tenant, content: { PONo: poNo, Items: [] } })).replace(
      '"Items":[]',
      `"Items":[${new Array(1_000_000).fill('0').join(',')}]`,
    );
    expect(payload.length).toBeLessThan(5 * MiB);
    const response = await ctx().post(RECEIPT_IMPORT, payload, world.customer);
    expect(response.statusCode, response.body.slice(0, 500)).toBe(400);
    expect(response.json()).toEqual(problems('ASNContent.Items must have at most 1000 items'));
    expect(await acksOf(poNo)).toEqual(['ASNContent.Items must have at most 1000 items']);
  });

  it("a text over its maxLength is refused for its length alone, unread, beside the body's other problems", async () => {
    const response = await ctx().post(
      RECEIPT_IMPORT,
      receiptBody({ tenant: world.tenant, content: { ScheduledDate: `3/5/2026 13:00${' '.repeat(100_000)}PM`, ETD: '3/5/2026 13:00 PM' } }),
      world.customer,
    );
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(
      problems(
        'ASNContent.ScheduledDate must be at most 50 characters',
        'ASNContent.ETD has hour 13 with PM; with AM or PM the hour is 1 to 12',
      ),
    );
  });

  it('a body with thousands of problems answers the first 100', async () => {
    // A thousand empty lines (the most the import takes): every line misses each of its required fields.
    const required = ReceiptLineSchema.required as string[];
    const lines = 1000;
    expect(lines * required.length).toBeGreaterThan(2000);
    const response = await ctx().post(
      RECEIPT_IMPORT,
      receiptBody({ tenant: world.tenant, content: { Items: new Array(lines).fill({}) } }),
      world.customer,
    );
    expect(response.statusCode).toBe(400);
    const expected = Array.from({ length: lines }, (_, line) => required.map((field) => `ASNContent.Items[${line}].${field} is required`))
      .flat()
      .slice(0, MAX_PROBLEMS);
    expect(response.json()).toEqual(problems(...expected));
    expect(expected).toHaveLength(100);
  });

  describe('memory', () => {
    const gc = (globalThis as { gc?: () => void }).gc;
    const heapAfterCollection = () => {
      gc!();
      return process.memoryUsage().heapUsed;
    };

    it('200 requests, each with a different 4 MiB ScheduledDate, leave the heap as it was', async () => {
      expect(typeof gc).toBe('function');
      const send = (index: number) => {
        const value = `${index}/1/2024 ${'x'.repeat(4 * MiB)}`;
        return ctx().post(RECEIPT_IMPORT, receiptBody({ tenant: world.tenant, content: { ScheduledDate: value } }), world.customer);
      };
      // The first requests warm what every request uses (compiled statements, pools).
      for (let index = 0; index < 5; index++) expect((await send(index)).statusCode).toBe(400);
      const before = heapAfterCollection();
      for (let index = 5; index < 205; index++) expect((await send(index)).statusCode).toBe(400);
      const growth = heapAfterCollection() - before;
      // Kept, the 200 texts alone would be 800 MiB; the ACKs and logs of 200 requests are a few.
      expect(growth).toBeLessThan(32 * MiB);
    }, 120_000);
  });
});
