import { LRUCache } from 'lru-cache';
import type { Db, Trx } from '../../db/database.js';
import type { Principal } from '../../http/auth.js';
import type { CommandContext } from '../../http/command-context.js';
import { pageRequestByKey, pagingOf } from '../../http/paging.js';
import { offsetWindow } from '../../http/time.js';
import type { Clock } from '../../lib/clock.js';
import { invalid } from '../../lib/refusal.js';
import { runCommand } from '../commands/commands.service.js';
import * as counts from '../counts/counts.service.js';
import * as events from '../events/events.service.js';
import { ITEM_HEAD, SERVER_OWNED_KEYS } from './items.fields.js';
import { presentItem } from './items.present.js';
import * as repo from './items.repository.js';
import type {
  ItemImportRequest,
  ItemImportResult,
  ItemImportStatus,
  ItemInput,
  ItemSearchRequest,
  ItemSearchResult,
} from './items.schemas.js';

/** The item master: a customer's items, imported by upsert and searched in pages. */

const serverOwned = new Set<string>(SERVER_OWNED_KEYS);
const headKeys = new Set(ITEM_HEAD);

/**
 * The stored form of an imported item's attributes: spec keys in head order, then any other keys in
 * name order, unset (null) keys dropped, so that the same item always stores the same text.
 */
function canonicalAttributes(item: ItemInput): string {
  const source = item as Record<string, unknown>;
  const extraKeys = Object.keys(source)
    .filter((key) => !headKeys.has(key))
    .sort();
  const attributes: Record<string, unknown> = {};
  for (const key of [...ITEM_HEAD, ...extraKeys]) {
    if (!serverOwned.has(key) && source[key] !== undefined && source[key] !== null) attributes[key] = source[key];
  }
  return JSON.stringify(attributes);
}

/** Problems that the schema cannot see: repeated itemIDs, and owner keys that name someone else. */
function importProblems(request: ItemImportRequest): string[] {
  const problems: string[] = [];
  const firstIndex = new Map<string, number>();
  request.Items.forEach((item, index) => {
    const earlier = firstIndex.get(item.itemID);
    if (earlier !== undefined) problems.push(`Items[${index}].itemID ${item.itemID} repeats Items[${earlier}]`);
    else firstIndex.set(item.itemID, index);
    if (item.companyId != null && item.companyId !== request.CompanyID) {
      problems.push(`Items[${index}].companyId must be the CompanyID of the request`);
    }
    if (item.customerId != null && item.customerId !== request.CustomerID) {
      problems.push(`Items[${index}].customerId must be the CustomerID of the request`);
    }
  });
  return problems;
}

/**
 * Creates or replaces each item of the request, all or nothing, and says per item whether it was
 * Created, Updated or Unchanged. A concurrent import that creates the same item first makes the
 * insert fail; the transaction then runs again and sees that item as existing.
 */
export async function importItems(cx: CommandContext, request: ItemImportRequest): Promise<ItemImportResult> {
  const problems = importProblems(request);
  if (problems.length > 0) throw invalid(...problems);
  return runCommand(cx, { run: (trx) => upsertItems(trx, cx.clock, cx.principal, request) });
}

async function upsertItems(trx: Trx, clock: Clock, principal: Principal, request: ItemImportRequest): Promise<ItemImportResult> {
  const companyId = request.CompanyID;
  const customerId = request.CustomerID;
  const incoming = request.Items.map((item) => ({
    itemId: item.itemID,
    status: item.status ?? 'Active',
    attributes: canonicalAttributes(item),
  }));

  const now = clock.now();
  const existing = new Map(
    (
      await repo.lockItemsById(
        trx,
        { companyId, customerId },
        incoming.map((i) => i.itemId),
      )
    ).map((row) => [row.item_id, row]),
  );
  const results: { itemID: string; Status: ItemImportStatus }[] = [];
  const created: typeof incoming = [];
  for (const item of incoming) {
    const stored = existing.get(item.itemId);
    if (!stored) {
      created.push(item);
      results.push({ itemID: item.itemId, Status: 'Created' });
    } else if (stored.status === item.status && stored.attributes === item.attributes) {
      results.push({ itemID: item.itemId, Status: 'Unchanged' });
    } else {
      await repo.updateItem(trx, { companyId, customerId, itemId: item.itemId }, stored, {
        status: item.status,
        attributes: item.attributes,
        updated_at: now,
        updated_by_key_id: principal.keyId,
      });
      results.push({ itemID: item.itemId, Status: 'Updated' });
    }
  }
  await repo.insertItems(
    trx,
    created.map((item) => ({
      company_id: companyId,
      customer_id: customerId,
      item_id: item.itemId,
      status: item.status,
      attributes: item.attributes,
      created_at: now,
      updated_at: now,
      created_by_key_id: principal.keyId,
      updated_by_key_id: principal.keyId,
    })),
  );
  const statusOf = new Map(incoming.map((item) => [item.itemId, item.status]));
  for (const { itemID, Status } of results) {
    if (Status === 'Unchanged') continue;
    events.recordEvent(trx, {
      type: Status === 'Created' ? 'item.created' : 'item.updated',
      keyId: principal.keyId,
      at: now,
      data: { CompanyID: companyId, CustomerID: customerId, ItemID: itemID, Status: statusOf.get(itemID) },
    });
  }
  return { Items: results };
}

/**
 * One page of a customer's items, in itemID order. Its totalCount comes from the kept counts
 * (docs/paging.md); its cursor is the last itemID, since the order is on the item alone.
 */
export async function searchItems(db: Db, request: ItemSearchRequest): Promise<ItemSearchResult> {
  const updated = offsetWindow(request.UpdatedWhenFrom, request.UpdatedWhenTo);
  const filter: repo.ItemFilter = {
    companyId: request.CompanyID,
    customerId: request.CustomerID,
    status: request.Status,
    itemId: request.itemID || undefined,
    updatedFrom: updated.from,
    updatedTo: updated.to,
  };
  const { totalCount, page } = await counts.countKeyedSearch(
    db,
    {
      companyId: filter.companyId,
      counted: 'items',
      facilityId: '',
      customerId: filter.customerId,
      statuses: filter.status === undefined ? undefined : [filter.status],
    },
    { from: filter.updatedFrom, to: filter.updatedTo, narrowed: filter.itemId !== undefined },
    pageRequestByKey(request.Paging, request.PageNo),
    {
      range: (from, to) => repo.countItems(db, { ...filter, updatedFrom: from, updatedTo: to }),
      through: (itemId) => repo.countItems(db, { ...filter, itemIdThrough: itemId }),
    },
  );
  const rows = page.offset < totalCount ? await repo.pageItems(db, filter, page) : [];
  const last = rows.at(-1);
  return {
    results: { head: [...ITEM_HEAD], data: rows.map(presentItem) },
    paging: pagingOf(page, totalCount, rows.length, last && { key: last.item_id }),
  };
}

/** Items remembered per database as found: the most a process keeps. */
const KNOWN_ITEMS_KEPT = 50_000;
const knownItemsOf = new WeakMap<Db, LRUCache<string, true>>();

/** What `db` remembers of found items; nothing for a transaction, which may see uncommitted rows. */
function rememberedItemsOf(db: Db): LRUCache<string, true> | undefined {
  if (db.isTransaction) return undefined;
  let remembered = knownItemsOf.get(db);
  if (!remembered) knownItemsOf.set(db, (remembered = new LRUCache({ max: KNOWN_ITEMS_KEPT })));
  return remembered;
}

/**
 * The IDs among `itemIds` that the customer's item master does not have, in their first order.
 * An item is never deleted, so one found in committed data stays known: read outside a transaction
 * (`db`, not a transaction, which may see uncommitted rows), the items found are remembered and
 * not read again, and a request whose items are all remembered reads nothing. What is not found
 * is read every time: an item imported a moment ago counts at once.
 */
export async function findUnknownItemIds(db: Db, companyId: string, customerId: string, itemIds: string[]): Promise<string[]> {
  const wanted = [...new Set(itemIds)];
  const remembered = rememberedItemsOf(db);
  const nameOf = (itemId: string) => JSON.stringify([companyId, customerId, itemId]);
  const toRead = remembered ? wanted.filter((id) => !remembered.has(nameOf(id))) : wanted;
  if (toRead.length === 0) return [];
  const known = new Set(await repo.findKnownItemIds(db, companyId, customerId, toRead));
  for (const id of known) remembered?.set(nameOf(id), true);
  return toRead.filter((id) => !known.has(id));
}

export interface ItemDescription {
  itemDescription: string | null;
  shortDescription: string | null;
}

/** The descriptions of the customer's items among `itemIds`, by item ID (absent when unknown). */
export async function findItemDescriptions(
  db: Db,
  companyId: string,
  customerId: string,
  itemIds: string[],
): Promise<Map<string, ItemDescription>> {
  const rows = await repo.findItemAttributes(db, companyId, customerId, [...new Set(itemIds)]);
  return new Map(
    rows.map((row) => {
      const attributes = JSON.parse(row.attributes) as Record<string, unknown>;
      const text = (value: unknown) => (typeof value === 'string' ? value : null);
      return [row.item_id, { itemDescription: text(attributes.itemDescription), shortDescription: text(attributes.shortDescription) }];
    }),
  );
}
