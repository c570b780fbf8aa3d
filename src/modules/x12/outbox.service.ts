/**
 * The X12 outbox (docs/x12.md): a customer's system (or its translator) lists the advices waiting
 * for its partners and acks what it took; it may ask for an 846; the operator exports what waits
 * to a folder (`wharf x12 export`).
 */
import { join } from 'node:path';
import type { Db } from '../../db/database.js';
import { purgeInBatches, type PurgeBatches, type Purged } from '../../db/purge.js';
import { inTransaction } from '../../db/transaction.js';
import type { Principal } from '../../http/auth.js';
import type { CommandContext } from '../../http/command-context.js';
import { pageRequest, pagingOf } from '../../http/paging.js';
import type { Clock } from '../../lib/clock.js';
import { makeOwnerOnlyDirectory, whatIsAt, writeNewFile } from '../../lib/owner-only-files.js';
import { invalid, notFound } from '../../lib/refusal.js';
import { runCommand } from '../commands/commands.service.js';
import { queueInventoryAdvice } from './advice-queue.js';
import * as repo from './outbox.repository.js';
import type {
  InventoryAdviceRequest,
  InventoryAdviceResult,
  OutboxAckRequest,
  OutboxAckResult,
  OutboxAdvice,
  OutboxListRequest,
  OutboxListResult,
} from './x12.schemas.js';

const isoOf = (at: number | null) => (at === null ? null : new Date(Number(at)).toISOString());

function presentAdvice(row: repo.OutboxRow): OutboxAdvice {
  return {
    OutboxID: Number(row.id),
    Partner: `${row.qualifier}/${row.partner_id}`,
    Set: row.set_id as OutboxAdvice['Set'],
    FacilityID: row.facility_id,
    DocumentNo: row.document_no,
    ControlNumber: row.control_no,
    Interchange: row.interchange,
    Problem: row.problem,
    CreatedWhen: isoOf(row.created_at)!,
    TakenWhen: isoOf(row.taken_at),
  };
}

const TAKEN_OF = { Waiting: false, Taken: true, All: undefined } as const;

/** The customer's advices a key may see: a key limited to facilities sees theirs only (docs/access.md). */
function scopeOf(principal: Principal, request: { CompanyID: string; CustomerID: string }): repo.OutboxFilter {
  return {
    companyId: request.CompanyID,
    customerId: request.CustomerID,
    ...(principal.facilityIds.length > 0 ? { facilityIds: principal.facilityIds } : {}),
  };
}

/** One page of the customer's advices, oldest first; waiting ones unless asked otherwise. */
export async function listOutbox(db: Db, principal: Principal, request: OutboxListRequest): Promise<OutboxListResult> {
  const filter = { ...scopeOf(principal, request), taken: TAKEN_OF[request.Status ?? 'Waiting'] };
  const page = pageRequest(request.Paging);
  const totalCount = await repo.countAdvices(db, filter);
  const rows = page.offset < totalCount ? await repo.pageAdvices(db, filter, page.offset, page.pageSize) : [];
  return { results: { data: rows.map(presentAdvice) }, paging: pagingOf(page, totalCount, rows.length) };
}

/**
 * Marks the customer's advices taken. An id that is not one of the customer's (in the key's
 * facilities) is 404 and takes
 * nothing; an advice taken before stays as it was (sending the same ack again changes nothing).
 */
export function acknowledgeAdvices(cx: CommandContext, request: OutboxAckRequest): Promise<OutboxAckResult> {
  return runCommand(cx, {
    run: async (trx) => {
      const found = await repo.findAdvices(trx, scopeOf(cx.principal, request), request.OutboxIDs);
      const unknown = request.OutboxIDs.filter((id) => !found.some((row) => Number(row.id) === id));
      if (unknown.length > 0) throw notFound(`Not found outbox advice ${unknown.sort((a, b) => a - b).join(', ')}`);
      const taken = await repo.markTaken(trx, request.CompanyID, request.OutboxIDs, cx.clock.now());
      const alreadyTaken = request.OutboxIDs.filter((id) => !taken.includes(id)).sort((a, b) => a - b);
      return { Taken: taken, AlreadyTaken: alreadyTaken };
    },
  });
}

/** Queues an 846 of the customer's stock in the facility for each of its partners (404 when it has none). */
export function requestInventoryAdvice(cx: CommandContext, request: InventoryAdviceRequest): Promise<InventoryAdviceResult> {
  return runCommand(cx, {
    run: async (trx) => {
      const key = { companyId: request.CompanyID, customerId: request.CustomerID, facilityId: request.FacilityID };
      const advices = await queueInventoryAdvice(trx, key, { at: cx.clock.now(), keyId: cx.principal.keyId });
      if (advices.length === 0) throw notFound(`Customer ${request.CustomerID} has no X12 trading partner`);
      return { Advices: advices };
    },
  });
}

/**
 * Purges, in batches, the advices a partner took before `cutoff` (docs/x12.md, "Retention"); an
 * advice still waiting is kept whatever its age.
 */
export function purgeTakenAdvicesBefore(db: Db, cutoff: number, batches: PurgeBatches): Promise<Purged> {
  return purgeInBatches(db, batches, (trx, limit) => repo.deleteTakenAdvicesBefore(trx, cutoff, limit));
}

/**
 * One field of a file name: letters and digits as they are, every other byte of its UTF-8 as `%XX`
 * (`-` and `%` included), so that no two values share a name (`X/1` is `X%2F1`, `X_1` is
 * `X%5F1`) and the `-` between fields cannot come from a field.
 */
const nameField = (value: string) =>
  value.replace(/[^A-Za-z0-9]/gu, (char) =>
    [...Buffer.from(char, 'utf8')].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  );

/**
 * The name of an advice's file: company, partner, ISA13 and set, which sort in the order they were
 * made per partner; each field encoded so that different advices never share a name.
 */
export const exportFileName = (row: repo.OutboxRow) =>
  `${[row.company_id, row.qualifier, row.partner_id, row.control_no!, row.set_id].map(nameField).join('-')}.x12`;

export interface ExportResult {
  /** The files written, each advice marked taken. */
  files: string[];
  /** Why an advice was not written; it waits in the list. */
  refused: string[];
}

/** The folder of an export, made owner-only when missing; a symbolic link or a file there is refused. */
function prepareFolder(dir: string): void {
  const found = whatIsAt(dir);
  if (!found) return makeOwnerOnlyDirectory(dir);
  if (found.isSymbolicLink()) throw invalid(`${dir} is a symbolic link: give the folder itself`);
  if (!found.isDirectory()) throw invalid(`${dir} is not a folder`);
}

/**
 * Writes every waiting advice (of every company, or of one) to `dir`, one new owner-only file
 * each, and marks it taken once written. A file is never written over, nor through a symbolic
 * link: an advice whose name is taken in `dir` is not written and waits in the list.
 */
export async function exportAdvices(db: Db, clock: Clock, dir: string, companyId?: string): Promise<ExportResult> {
  prepareFolder(dir);
  const result: ExportResult = { files: [], refused: [] };
  for (const row of await repo.findWaitingAdvices(db, companyId)) {
    const file = join(dir, exportFileName(row));
    if (!writeNewFile(file, row.interchange!)) {
      result.refused.push(`${file} already exists: outbox advice ${row.id} was not written and waits`);
      continue;
    }
    await inTransaction(db, (trx) => repo.markTaken(trx, row.company_id, [Number(row.id)], clock.now()));
    result.files.push(file);
  }
  return result;
}
