import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { settleChange } from './app.js';
import type { Db } from './db/database.js';
import { seedDemoDocuments } from './demo-documents.js';
import { Refusal } from './lib/refusal.js';
import type { Principal, Role } from './http/auth.js';
import type { CommandContext } from './http/command-context.js';
import type { Clock } from './lib/clock.js';
import { sha256Hex } from './lib/ids.js';
import { adjustQuantities } from './modules/inventory/adjustments.service.js';
import { importItems } from './modules/items/items.service.js';
import { loadRateCard } from './modules/rating/rating.service.js';
import * as tenants from './modules/tenants/tenants.service.js';
import * as partners from './modules/x12/partners.service.js';

/** The DEMO tenant that `npm run demo` seeds: idempotent, so every run prints the same keys. */

export const DEMO = {
  company: 'DEMO',
  customer: 'ACME',
  facility: 'LAX1',
  timeZone: 'America/Los_Angeles',
  raterUserId: 1001,
  x12PartnerId: 'ACMEEDI',
};

const DEMO_ITEMS = [
  {
    itemID: 'MUG-BLUE-12',
    itemDescription: 'Ceramic mug, blue, 12 oz',
    BaseUOM: 'EA',
    BaseLength: 4.5,
    BaseWidth: 3.5,
    BaseHeight: 4,
    BaseUnitLength: 'Inch',
    BaseWeight: 0.9,
    BaseUnitWeight: 'Pound',
    CaseQty: 24,
    CaseUOM: 'CS',
  },
  {
    itemID: 'MUG-RED-12',
    itemDescription: 'Ceramic mug, red, 12 oz',
    BaseUOM: 'EA',
    BaseLength: 4.5,
    BaseWidth: 3.5,
    BaseHeight: 4,
    BaseUnitLength: 'Inch',
    BaseWeight: 0.9,
    BaseUnitWeight: 'Pound',
    CaseQty: 24,
    CaseUOM: 'CS',
  },
  {
    itemID: 'TEE-BLK-M',
    itemDescription: 'T-shirt, black, M',
    BaseUOM: 'EA',
    BaseWeight: 0.4,
    BaseUnitWeight: 'Pound',
    hasSerialNumber: 'N',
  },
  {
    itemID: 'LAMP-DESK',
    itemDescription: 'Desk lamp with LED bulb',
    BaseUOM: 'EA',
    BaseLength: 18,
    BaseWidth: 7,
    BaseHeight: 7,
    BaseUnitLength: 'Inch',
    BaseWeight: 3.2,
    BaseUnitWeight: 'Pound',
    hasSerialNumber: 'Y',
  },
  { itemID: 'OLD-SKU-1', itemDescription: 'Discontinued sample', BaseUOM: 'EA', status: 'Inactive' as const },
];

/** Stock in LAX1, so that a demo order allocates: two lots of the blue mug, the older expiring first. */
const DEMO_STOCK = [
  { ItemNumber: 'MUG-BLUE-12', UOM: 'EA' as const, LotNo: 'L2403', ExpirationDate: '2027-03-31', Qty: '120' },
  { ItemNumber: 'MUG-BLUE-12', UOM: 'EA' as const, LotNo: 'L2409', ExpirationDate: '2027-09-30', Qty: '240' },
  { ItemNumber: 'MUG-RED-12', UOM: 'EA' as const, Qty: '96' },
  { ItemNumber: 'TEE-BLK-M', UOM: 'EA' as const, Qty: '50' },
  { ItemNumber: 'LAMP-DESK', UOM: 'EA' as const, Qty: '12' },
];

/** The example rate card the project ships, beside src/ and dist/. */
export const EXAMPLE_RATE_CARD = fileURLToPath(new URL('../examples/rate-card.json', import.meta.url));

const ROLES: Role[] = ['customer', 'operator', 'admin', 'rater'];

type DemoKeys = Record<Role, string>;

async function ignoreDuplicate(step: () => Promise<unknown>): Promise<void> {
  try {
    await step();
  } catch (error) {
    if (!(error instanceof Refusal && error.kind === 'conflict')) throw error;
  }
}

function readKeyFile(path: string): Partial<DemoKeys> {
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Partial<DemoKeys>) : {};
}

/** Seeds the DEMO tenant, reusing the keys in `keyFile` while they still work; returns the keys. */
export async function seedDemo(db: Db, clock: Clock, keyFile: string): Promise<DemoKeys> {
  await ignoreDuplicate(() => tenants.addCompany(db, clock, { companyId: DEMO.company, name: 'Demo Logistics' }));
  await ignoreDuplicate(() =>
    tenants.addCustomer(db, clock, { companyId: DEMO.company, customerId: DEMO.customer, name: 'Acme Housewares' }),
  );
  await ignoreDuplicate(() =>
    tenants.addFacility(db, clock, { companyId: DEMO.company, facilityId: DEMO.facility, name: 'Los Angeles DC', timeZone: DEMO.timeZone }),
  );

  const saved = readKeyFile(keyFile);
  const keys = {} as DemoKeys;
  for (const role of ROLES) {
    const known = saved[role];
    if (known && (await tenants.authenticateApiKey(db, clock, known))) {
      keys[role] = known;
      continue;
    }
    const { key } = await tenants.createApiKey(db, clock, {
      role,
      companyId: DEMO.company,
      customerIds: role === 'customer' ? [DEMO.customer] : [],
      facilityIds: role === 'customer' || role === 'operator' ? [DEMO.facility] : [],
      userIds: role === 'rater' ? [DEMO.raterUserId] : [],
      label: `demo ${role}`,
    });
    keys[role] = key;
  }
  mkdirSync(dirname(keyFile), { recursive: true });
  writeFileSync(keyFile, `${JSON.stringify(keys, null, 2)}\n`, { mode: 0o600 });

  // What a request's hash is for: an AdjustmentNo replays only for the same request (a CHAR(64) column).
  const contextOf =
    (principal: Principal) =>
    (request: unknown): CommandContext => ({
      db,
      clock,
      principal,
      identity: { companyId: DEMO.company, keyId: principal.keyId, requestHash: sha256Hex(JSON.stringify(request)) },
      settle: settleChange,
    });
  const cx = contextOf((await tenants.authenticateApiKey(db, clock, keys.admin))!);
  // The customer's own system makes the webhook endpoints, with the customer key (limited to LAX1).
  const customerCx = contextOf((await tenants.authenticateApiKey(db, clock, keys.customer))!);
  // Acme's X12 translator (its 940 is the example of POST /edi/x12): added first, so that the
  // opening stock and the demo's confirmations below queue its 947, 944s and 945s.
  await ignoreDuplicate(() =>
    partners.addPartner(db, clock, { companyId: DEMO.company, customerId: DEMO.customer, id: DEMO.x12PartnerId, qualifier: 'ZZ' }),
  );
  const items = { CompanyID: DEMO.company, CustomerID: DEMO.customer, Items: DEMO_ITEMS };
  await importItems(cx(items), items);
  // An AdjustmentNo applies once: a second run replays it and adds nothing.
  const stock = {
    CompanyID: DEMO.company,
    FacilityID: DEMO.facility,
    CustomerID: DEMO.customer,
    AdjustmentNo: 'DEMO-OPENING-STOCK',
    Items: DEMO_STOCK,
  };
  await adjustQuantities(cx(stock), stock);
  // The example card is the company's default; loading it again when it is already the latest changes nothing.
  await loadRateCard(db, clock, { companyId: DEMO.company, text: readFileSync(EXAMPLE_RATE_CARD, 'utf8') });
  await seedDemoDocuments(db, clock, cx, customerCx);
  return keys;
}
