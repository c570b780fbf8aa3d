import type { Command } from 'commander';
import { dbOption, printList, withDatabase, withExistingDatabase, type CliIo } from './cli-support.js';
import { systemClock } from './lib/clock.js';
import * as partners from './modules/x12/partners.service.js';

/** `wharf x12 …`: the X12 bridge's trading partners (DESIGN §16). */
export function addX12Commands(program: Command, io: CliIo): void {
  const x12 = program.command('x12').description('the X12 bridge: trading partners (DESIGN §16)');
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
