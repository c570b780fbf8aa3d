import { Type, type Static } from '@sinclair/typebox';
import type { Db } from '../../db/database.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { Clock } from '../../lib/clock.js';
import { conflict, invalid, notFound } from '../../lib/refusal.js';
import { inputProblems } from '../../lib/validate.js';
import * as tenants from '../tenants/tenants.service.js';
import * as repo from './partners.repository.js';

/**
 * X12 trading partners (docs/x12.md): which customer's system an interchange comes from, by the
 * sender's ISA qualifier and id, and what Wharf calls it in the envelopes it sends back.
 */

/**
 * An ISA or GS id: 1 to 15 letters, digits, spaces and the punctuation ids use in practice; never a
 * character that could be an interchange's delimiter (ISA06/ISA08 are 15 wide, GS02/GS03 up to 15).
 */
export const X12Id = (field: string) =>
  Type.String({
    pattern: '^[A-Za-z0-9 .,&/()@#_-]{1,15}$',
    'x-message': `must be 1 to 15 letters, digits, spaces or . , & / ( ) @ # _ - characters, as ${field} takes`,
  });

/** An ISA id qualifier (ISA05/ISA07). */
export const X12Qualifier = () =>
  Type.String({ pattern: '^[A-Z0-9]{2}$', 'x-message': 'must be the 2-character ISA qualifier, such as ZZ or 01' });

export const NewPartnerSchema = Type.Object({
  companyId: Type.String({ minLength: 1, maxLength: 15 }),
  customerId: Type.String({ minLength: 1, maxLength: 15 }),
  /** The partner's ISA06 (its sender id), named as the CLI's --id. */
  id: X12Id('ISA06'),
  qualifier: X12Qualifier(),
  gsId: Type.Optional(X12Id('GS02')),
});
export type NewPartner = Static<typeof NewPartnerSchema>;

/** Wharf's own party in a company's interchanges: ISA qualifier and id, and GS id. */
export interface OwnParty {
  qualifier: string;
  id: string;
  gsId: string;
}

/** Wharf's own ids in a company's interchanges (docs/x12.md): what the company set, else ZZ and the CompanyID. */
export async function ownParty(db: Db, companyId: string): Promise<OwnParty> {
  const row = await repo.findIdentity(db, companyId);
  return row ? { qualifier: row.qualifier, id: row.isa_id, gsId: row.gs_id } : { qualifier: 'ZZ', id: companyId, gsId: companyId };
}

export const OwnIdentitySchema = Type.Object({
  companyId: Type.String({ minLength: 1, maxLength: 15 }),
  id: X12Id('ISA06'),
  qualifier: X12Qualifier(),
  gsId: Type.Optional(X12Id('GS02')),
});
export type OwnIdentity = Static<typeof OwnIdentitySchema>;

/** Sets Wharf's own ids in a company's interchanges (its GS id is its ISA id unless given); answers them. */
export async function setOwnParty(db: Db, clock: Clock, input: OwnIdentity): Promise<OwnParty> {
  const problems = inputProblems(OwnIdentitySchema, input);
  if (problems.length > 0) throw invalid(...problems);
  if (!(await tenants.companyExists(db, input.companyId))) throw notFound(`Company ${input.companyId} not found`);
  const party = { qualifier: input.qualifier, id: input.id, gsId: input.gsId ?? input.id };
  await repo.saveIdentity(db, {
    company_id: input.companyId,
    qualifier: party.qualifier,
    isa_id: party.id,
    gs_id: party.gsId,
    updated_at: clock.now(),
  });
  return party;
}

export interface PartnerView {
  company: string;
  customer: string;
  qualifier: string;
  partnerId: string;
  gsId: string;
  createdAt: string;
}

const present = (row: repo.PartnerRow): PartnerView => ({
  company: row.company_id,
  customer: row.customer_id,
  qualifier: row.qualifier,
  partnerId: row.partner_id,
  gsId: row.gs_id,
  createdAt: new Date(Number(row.created_at)).toISOString(),
});

/** Adds a partner of a customer; its GS id is its ISA id unless given. A qualifier and id a company has already is 409. */
export async function addPartner(db: Db, clock: Clock, input: NewPartner): Promise<PartnerView> {
  const problems = inputProblems(NewPartnerSchema, input);
  if (problems.length > 0) throw invalid(...problems);
  if (!(await tenants.customerExists(db, input.companyId, input.customerId))) {
    throw notFound(`Customer ${input.customerId} not found in company ${input.companyId}`);
  }
  const row = {
    company_id: input.companyId,
    qualifier: input.qualifier,
    partner_id: input.id,
    gs_id: input.gsId ?? input.id,
    customer_id: input.customerId,
    created_at: clock.now(),
  };
  try {
    await repo.insertPartner(db, row);
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(`Partner ${input.qualifier}/${input.id} already exists in company ${input.companyId}`);
    throw error;
  }
  return present({ ...row, last_interchange_no: 0, last_group_no: 0, last_set_no: 0 });
}

/** The partners of every company, or of one (which must exist). */
export async function listPartners(db: Db, companyId?: string): Promise<PartnerView[]> {
  if (companyId !== undefined && !(await tenants.companyExists(db, companyId))) throw notFound(`Company ${companyId} not found`);
  return (await repo.listPartners(db, companyId)).map(present);
}
