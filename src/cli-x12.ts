import type { Command } from 'commander';
import { adminContext, checkRequest, requireTenant } from './cli-company-admin.js';
import { dbOption, printList, withDatabase, withExistingDatabase, type CliIo } from './cli-support.js';
import { systemClock } from './lib/clock.js';
import { invalid } from './lib/refusal.js';
import { exportAdvices, requestInventoryAdvice } from './modules/x12/outbox.service.js';
import * as partners from './modules/x12/partners.service.js';
import { InventoryAdviceRequestSchema } from './modules/x12/x12.schemas.js';

/** `wharf x12 …`: the X12 bridge's trading partners and its outbox of advices (docs/x12.md). */
export function addX12Commands(program: Command, io: CliIo): void {
  const x12 = program.command('x12').description('the X12 bridge: trading partners and advices (docs/x12.md)');
  x12
    .command('export')
    .description('write every X12 advice waiting for a partner to a folder, one file each, and mark it taken')
    .requiredOption('--dir <folder>', 'where to write the files, each a new owner-only file (the folder is made when missing)')
    .option('--company <CompanyID>', "only this company's advices")
    .addOption(dbOption())
    .action(async (options) => {
      const { files, refused } = await withDatabase(options, (db) => exportAdvices(db, systemClock, options.dir, options.company));
      for (const file of files) io.out(file);
      io.out(`${files.length} advice${files.length === 1 ? '' : 's'} exported`);
      if (refused.length > 0) throw invalid(...refused);
    });
  x12
    .command('846')
    .description("queue an 846 of a customer's stock in a facility for each of its partners")
    .requiredOption('--company <CompanyID>', 'the company')
    .requiredOption('--customer <CustomerID>', 'the customer whose stock it tells')
    .requiredOption('--facility <FacilityID>', 'the facility')
    .addOption(dbOption())
    .action(async (options) => {
      const request = { CompanyID: options.company, CustomerID: options.customer, FacilityID: options.facility };
      checkRequest(InventoryAdviceRequestSchema, request);
      const { Advices } = await withDatabase(options, async (db) => {
        await requireTenant(db, request);
        return requestInventoryAdvice(adminContext(db, request), request);
      });
      for (const advice of Advices) {
        io.out(
          `846 ${advice.ControlNumber ?? '(not written)'} queued for ${advice.Partner} as outbox advice ${advice.OutboxID}${advice.Problem ? `: ${advice.Problem}` : ''}`,
        );
      }
    });
  const identity = x12.command('identity').description("Wharf's own ids in a company's interchanges (default: ZZ and the CompanyID)");
  identity
    .command('set')
    .description("set Wharf's ISA qualifier and id, and GS id, in a company's interchanges")
    .requiredOption('--company <CompanyID>', 'the company')
    .requiredOption('--id <ISA id>', "Wharf's ISA06/ISA08 in the company's interchanges, up to 15 characters")
    .option('--qualifier <ZZ>', "Wharf's ISA qualifier", 'ZZ')
    .option('--gs-id <GS id>', "Wharf's GS application id (default: its ISA id)")
    .addOption(dbOption())
    .action(async (options) => {
      const party = await withDatabase(options, (db) =>
        partners.setOwnParty(db, systemClock, {
          companyId: options.company,
          id: options.id,
          qualifier: options.qualifier,
          gsId: options.gsId,
        }),
      );
      io.out(`${options.company} is ${party.qualifier}/${party.id} (GS ${party.gsId}) in its interchanges`);
    });
  identity
    .command('show')
    .description("show Wharf's ids in a company's interchanges")
    .requiredOption('--company <CompanyID>', 'the company')
    .addOption(dbOption())
    .action(async (options) => {
      const party = await withExistingDatabase(options, async (db) => {
        await requireTenant(db, { CompanyID: options.company });
        return partners.ownParty(db, options.company);
      });
      io.out(`${options.company} is ${party.qualifier}/${party.id} (GS ${party.gsId}) in its interchanges`);
    });
  const partner = x12.command('partner').description("manage a company's X12 trading partners");
  partner
    .command('add')
    .description("add a customer's X12 trading partner, known by the sender's ISA qualifier and id")
    .requiredOption('--company <CompanyID>', 'the company')
    .requiredOption('--customer <CustomerID>', 'the customer whose documents the partner sends and receives')
    .requiredOption('--id <ISA id>', "the partner's ISA06 (sender id), up to 15 characters")
    .option('--qualifier <ZZ>', "the partner's ISA05 qualifier", 'ZZ')
    .option('--gs-id <GS id>', "the partner's GS02 application id (default: its ISA id)")
    .addOption(dbOption())
    .action(async (options) => {
      const added = await withDatabase(options, (db) =>
        partners.addPartner(db, systemClock, {
          companyId: options.company,
          customerId: options.customer,
          id: options.id,
          qualifier: options.qualifier,
          gsId: options.gsId,
        }),
      );
      io.out(`partner ${added.qualifier}/${added.partnerId} (GS ${added.gsId}) added for ${added.customer} of ${added.company}`);
    });
  partner
    .command('list')
    .description('list the trading partners of every company, or of one')
    .option('--company <CompanyID>', 'only the partners of this company')
    .option('--json', 'print a JSON array')
    .addOption(dbOption())
    .action(async (options) => {
      const rows = await withExistingDatabase(options, (db) => partners.listPartners(db, options.company));
      printList(io, options.json, rows, 'no partners', (p) => [
        p.company,
        `${p.qualifier}/${p.partnerId}`,
        `GS ${p.gsId}`,
        `customer ${p.customer}`,
        `created ${p.createdAt}`,
      ]);
    });
}
