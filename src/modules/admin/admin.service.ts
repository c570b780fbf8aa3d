import type { Db, Trx } from '../../db/database.js';
import { inTransaction } from '../../db/transaction.js';
import type { Principal } from '../../http/auth.js';
import type { CommandContext } from '../../http/command-context.js';
import { parseWithOffset } from '../../http/time.js';
import type { Clock } from '../../lib/clock.js';
import { invalid, notFound } from '../../lib/refusal.js';
import { RateCardError } from '../rating/rate-card.compile.js';
import * as rating from '../rating/rating.service.js';
import * as partners from '../x12/partners.service.js';
import type { PartnerView } from '../x12/partners.service.js';
import type { NewX12PartnerRequest, X12Partner, X12PartnerResult } from '../x12/x12.schemas.js';
import * as tenants from '../tenants/tenants.service.js';
import { listCompanyEndpoints } from '../webhooks/endpoints.service.js';
import type { EndpointListResult } from '../webhooks/webhooks.schemas.js';
import type { ApiKeyView, CustomerView, FacilityView } from '../tenants/tenants.schemas.js';
import * as repo from './admin.repository.js';
import type {
  AdminChange,
  Customer,
  CustomerChange,
  CustomerResult,
  Facility,
  FacilityChange,
  FacilityResult,
  Key,
  KeyResult,
  KeyRotationRequest,
  KeyRotationResult,
  KeyWithSecretResult,
  NewCustomerRequest,
  NewFacilityRequest,
  NewKeyRequest,
  RateCard,
  RateCardDetail,
  RateCardLoadRequest,
  RateCardLoadResult,
} from './admin.schemas.js';

/**
 * The admin API (docs/admin.md): an admin key manages its own company's customers, facilities, API
 * keys and rate cards through the same services as the CLI, and reads its webhook endpoints and
 * the record of its changes. The company is always the key's, never the caller's to name, so
 * another company's records answer as unknown ones; every change is recorded with its key.
 */

const TIME_ZONE = 'TimeZone';

/** The admin API names a new key's fields by its own keys, not the CLI's flags. */
const API_KEY_FIELDS: tenants.KeyFieldNames = {
  customers: { one: 'entry in Customers', list: 'Customers' },
  facilities: { one: 'entry in Facilities', list: 'Facilities' },
  userIds: { one: 'entry in UserIDs', list: 'UserIDs' },
  expiresAt: 'ExpiresAt',
};

/** How long a rotated key keeps working when the request does not say. */
const DEFAULT_GRACE_HOURS = 24;

/** What a change was, for its record: never key material. */
interface ChangeRecord {
  action: string;
  subject: string | number;
  detail: Record<string, unknown>;
}

/**
 * Makes a change and records it with the key that made it, in one transaction: a change that
 * rolls back leaves no record, and every change has one. (Not runCommand: an admin answer is not
 * kept for an Idempotency-Key, since a key's creation would keep the key itself.)
 */
function recorded<T>(cx: CommandContext, change: (trx: Trx) => Promise<T>, record: (result: T) => ChangeRecord): Promise<T> {
  return inTransaction(cx.db, async (trx) => {
    const result = await change(trx);
    const { action, subject, detail } = record(result);
    await repo.insertChange(trx, {
      company_id: cx.principal.companyId,
      key_id: cx.principal.keyId,
      action,
      subject: String(subject),
      detail: JSON.stringify(detail),
      created_at: cx.clock.now(),
    });
    return result;
  });
}

const customerOf = (view: CustomerView): Customer => ({ CustomerID: view.customer, Name: view.name, CreatedWhen: view.createdAt });

const facilityOf = (view: FacilityView): Facility => ({
  FacilityID: view.facility,
  Name: view.name,
  TimeZone: view.timeZone,
  CreatedWhen: view.createdAt,
});

const keyOf = (view: ApiKeyView): Key => ({
  KeyID: view.id,
  Role: view.role as Key['Role'],
  Customers: view.customers,
  Facilities: view.facilities,
  UserIDs: view.userIds,
  Label: view.label,
  CreatedWhen: view.createdAt,
  LastUsedWhen: view.lastUsedAt,
  RevokedWhen: view.revokedAt,
  RateLimit: view.rateLimit,
  ExpiresAt: view.expiresAt,
  ReplacedBy: view.replacedBy,
});

export async function listCustomers(db: Db, principal: Principal): Promise<{ Customers: Customer[] }> {
  return { Customers: (await tenants.listCustomers(db, principal.companyId)).map(customerOf) };
}

export async function createCustomer(cx: CommandContext, request: NewCustomerRequest): Promise<CustomerResult> {
  return recorded(
    cx,
    async (trx) => ({
      Customer: customerOf(
        await tenants.addCustomer(trx, cx.clock, { companyId: cx.principal.companyId, customerId: request.CustomerID, name: request.Name }),
      ),
    }),
    ({ Customer }) => ({ action: 'customer.created', subject: Customer.CustomerID, detail: { Name: Customer.Name } }),
  );
}

export async function updateCustomer(cx: CommandContext, customerId: string, change: CustomerChange): Promise<CustomerResult> {
  return recorded(
    cx,
    async (trx) => ({
      Customer: customerOf(await tenants.renameCustomer(trx, { companyId: cx.principal.companyId, customerId, name: change.Name })),
    }),
    ({ Customer }) => ({ action: 'customer.updated', subject: Customer.CustomerID, detail: { Name: Customer.Name } }),
  );
}

export async function listFacilities(db: Db, principal: Principal): Promise<{ Facilities: Facility[] }> {
  return { Facilities: (await tenants.listFacilities(db, principal.companyId)).map(facilityOf) };
}

export async function createFacility(cx: CommandContext, request: NewFacilityRequest): Promise<FacilityResult> {
  return recorded(
    cx,
    async (trx) => ({
      Facility: facilityOf(
        await tenants.addFacility(
          trx,
          cx.clock,
          { companyId: cx.principal.companyId, facilityId: request.FacilityID, name: request.Name, timeZone: request.TimeZone },
          TIME_ZONE,
        ),
      ),
    }),
    ({ Facility }) => ({
      action: 'facility.created',
      subject: Facility.FacilityID,
      detail: { Name: Facility.Name, TimeZone: Facility.TimeZone },
    }),
  );
}

export async function updateFacility(cx: CommandContext, facilityId: string, change: FacilityChange): Promise<FacilityResult> {
  return recorded(
    cx,
    (trx) =>
      tenants.updateFacility(
        trx,
        { companyId: cx.principal.companyId, facilityId, name: change.Name, timeZone: change.TimeZone },
        TIME_ZONE,
      ),
    ({ facility, before }) => ({
      action: 'facility.updated',
      subject: facility.facility,
      detail: { Name: facility.name, TimeZone: facility.timeZone, Before: { Name: before.name, TimeZone: before.timeZone } },
    }),
  ).then(({ facility }) => ({ Facility: facilityOf(facility) }));
}

export async function listKeys(db: Db, principal: Principal): Promise<{ Keys: Key[] }> {
  return { Keys: (await tenants.listApiKeys(db, principal.companyId)).map(keyOf) };
}

export async function createKey(cx: CommandContext, request: NewKeyRequest): Promise<KeyWithSecretResult> {
  const { key, view } = await recorded(
    cx,
    (trx) =>
      tenants.createApiKey(
        trx,
        cx.clock,
        {
          role: request.Role,
          companyId: cx.principal.companyId,
          customerIds: request.Customers ?? [],
          facilityIds: request.Facilities ?? [],
          userIds: request.UserIDs ?? [],
          label: request.Label ?? '',
          rateLimit: request.RateLimit,
          // The schema has checked the form: what it accepts parses.
          expiresAt: request.ExpiresAt === undefined ? undefined : parseWithOffset(request.ExpiresAt)!,
        },
        API_KEY_FIELDS,
      ),
    // The key itself is never recorded: only what it may do.
    ({ view }) => ({ action: 'key.created', subject: view.id, detail: detailOfKey(keyOf(view)) }),
  );
  return { Key: { ...keyOf(view), Key: key } };
}

/** A key as its change records it: its role, scope and limits, never the key. */
const detailOfKey = ({ Role, Customers, Facilities, UserIDs, Label, RateLimit, ExpiresAt }: Key) => ({
  Role,
  Customers,
  Facilities,
  UserIDs,
  Label,
  RateLimit,
  ExpiresAt,
});

/** A key of the admin's company; another company's answers as an unknown one. */
async function requireOwnKey(db: Db, principal: Principal, keyId: number): Promise<void> {
  const own = (await tenants.findApiKeyView(db, keyId))?.company === principal.companyId;
  if (!own) throw notFound(`API key ${keyId} not found`);
}

export async function rotateKey(cx: CommandContext, keyId: number, request: KeyRotationRequest): Promise<KeyRotationResult> {
  await requireOwnKey(cx.db, cx.principal, keyId);
  const graceHours = request.GraceHours ?? DEFAULT_GRACE_HOURS;
  const { key, view, replaced } = await recorded(
    cx,
    (trx) => tenants.rotateApiKey(trx, cx.clock, keyId, graceHours * 3_600_000),
    ({ view, replaced }) => ({
      action: 'key.rotated',
      subject: keyId,
      detail: { NewKeyID: view.id, GraceHours: graceHours, ReplacedExpiresAt: replaced.expiresAt },
    }),
  );
  return { Key: { ...keyOf(view), Key: key }, Replaced: keyOf(replaced) };
}

export async function revokeKey(cx: CommandContext, keyId: number): Promise<KeyResult> {
  await requireOwnKey(cx.db, cx.principal, keyId);
  const view = await recorded(
    cx,
    (trx) => tenants.revokeApiKey(trx, cx.clock, keyId),
    (revoked) => ({ action: 'key.revoked', subject: keyId, detail: { RevokedWhen: revoked.revokedAt } }),
  );
  return { Key: keyOf(view) };
}

const rateCardOf = (view: rating.RateCardView): RateCard => ({
  RateCardID: view.id,
  UserID: view.userId,
  Version: view.version,
  Name: view.name,
  EffectiveFrom: view.effectiveFrom,
  EffectiveTo: view.effectiveTo,
  TimeZone: view.timeZone,
  LoadedWhen: view.loadedAt,
  InForce: view.inForce,
});

export async function listRateCards(db: Db, clock: Clock, principal: Principal): Promise<{ RateCards: RateCard[] }> {
  return { RateCards: (await rating.listRateCards(db, clock, principal.companyId)).map(rateCardOf) };
}

/**
 * Loads a card as the CLI's `ratecard load` does: the same checks, every problem of a bad card at
 * once (400), and the card in force stays until a good one is loaded.
 */
export async function loadRateCard(cx: CommandContext, request: RateCardLoadRequest): Promise<RateCardLoadResult> {
  try {
    const { card, changed } = await recorded(
      cx,
      (trx) =>
        rating.loadRateCard(trx, cx.clock, {
          companyId: cx.principal.companyId,
          userId: request.UserID,
          text: JSON.stringify(request.Card),
          keyId: cx.principal.keyId,
        }),
      ({ card, changed }) => ({
        action: 'rate-card.loaded',
        subject: card.version,
        detail: { UserID: card.userId, Name: card.name, Changed: changed },
      }),
    );
    return { RateCard: rateCardOf(card), Changed: changed };
  } catch (error) {
    if (error instanceof RateCardError) throw invalid(...error.problems.map((problem) => `Card: ${problem}`));
    throw error;
  }
}

/** One version of a binding's card (the company default's, or a UserID's), with the card itself. */
export async function getRateCard(db: Db, clock: Clock, principal: Principal, version: number, userId?: number): Promise<RateCardDetail> {
  const found = await rating.findRateCard(db, clock, principal.companyId, userId ?? null, version);
  const binding = userId === undefined ? 'the company default' : `UserID ${userId}`;
  if (!found) throw notFound(`Rate card version ${version} of ${binding} not found`);
  return { RateCard: { ...rateCardOf(found.view), Card: found.card } };
}

/** Every webhook endpoint of the company: each customer's and the company-wide ones (never a secret). */
const partnerOf = (view: PartnerView): X12Partner => ({
  CustomerID: view.customer,
  Qualifier: view.qualifier,
  PartnerID: view.partnerId,
  GsID: view.gsId,
  CreatedWhen: view.createdAt,
});

export async function listX12Partners(db: Db, principal: Principal): Promise<{ Partners: X12Partner[] }> {
  return { Partners: (await partners.listPartners(db, principal.companyId)).map(partnerOf) };
}

/** Adds a customer's X12 trading partner, with the checks of `wharf x12 partner add`. */
export async function createX12Partner(cx: CommandContext, request: NewX12PartnerRequest): Promise<X12PartnerResult> {
  return recorded(
    cx,
    async (trx) => ({
      Partner: partnerOf(
        await partners.addPartner(trx, cx.clock, {
          companyId: cx.principal.companyId,
          customerId: request.CustomerID,
          id: request.PartnerID,
          qualifier: request.Qualifier ?? 'ZZ',
          ...(request.GsID !== undefined ? { gsId: request.GsID } : {}),
        }),
      ),
    }),
    ({ Partner }) => ({
      action: 'x12-partner.created',
      subject: `${Partner.Qualifier}/${Partner.PartnerID}`,
      detail: { CustomerID: Partner.CustomerID, GsID: Partner.GsID },
    }),
  );
}

export function listWebhookEndpoints(db: Db, principal: Principal): Promise<EndpointListResult> {
  return listCompanyEndpoints(db, principal.companyId);
}

/** How many changes a page of the record shows. */
const CHANGES_PAGE = 100;

/** The company's record of admin changes, newest first: a page of 100, before a ChangeID when given. */
export async function listChanges(db: Db, principal: Principal, before?: number): Promise<{ Changes: AdminChange[] }> {
  const rows = await repo.listChanges(db, principal.companyId, CHANGES_PAGE, before);
  return {
    Changes: rows.map((row) => ({
      ChangeID: Number(row.id),
      KeyID: Number(row.key_id),
      Action: row.action,
      Subject: row.subject,
      Detail: JSON.parse(row.detail) as Record<string, unknown>,
      CreatedWhen: new Date(Number(row.created_at)).toISOString(),
    })),
  };
}
