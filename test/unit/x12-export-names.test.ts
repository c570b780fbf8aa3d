import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { OutboxRow } from '../../src/modules/x12/outbox.repository.js';
import { exportFileName } from '../../src/modules/x12/outbox.service.js';

/** `wharf x12 export` names each advice's file from its ids: different advices never share a name. */

type Ids = [company: string, qualifier: string, partner: string, controlNo: string, set: string];

const nameOf = ([company, qualifier, partner, controlNo, set]: Ids) =>
  exportFileName({ company_id: company, qualifier, partner_id: partner, control_no: controlNo, set_id: set } as OutboxRow);

describe('export file names', () => {
  it('keeps letters and digits, and writes every other byte as %XX', () => {
    expect(nameOf(['DEMO', 'ZZ', 'ACMEEDI', '000000001', '846'])).toBe('DEMO-ZZ-ACMEEDI-000000001-846.x12');
    expect(nameOf(['DEMO', 'ZZ', 'X/1', '000000001', '846'])).toBe('DEMO-ZZ-X%2F1-000000001-846.x12');
    expect(nameOf(['DEMO', 'ZZ', 'X_1', '000000001', '846'])).toBe('DEMO-ZZ-X%5F1-000000001-846.x12');
    expect(nameOf(['A-B', '01', 'C 1.%', '000000002', '945'])).toBe('A%2DB-01-C%201%2E%25-000000002-945.x12');
    expect(nameOf(['DEMO', 'ZZ', 'É', '000000001', '846'])).toBe('DEMO-ZZ-%C3%89-000000001-846.x12');
  });

  it('gives different ids different names: the separator and %XX cannot come from an id', () => {
    const pieces = fc.constantFrom('X', '1', '/', '_', '-', '%', '%2F', '.', ' ', 'É', '😀');
    const id = fc.array(pieces, { maxLength: 4 }).map((parts) => parts.join(''));
    const ids = fc.tuple(id, id, id, id, id) as fc.Arbitrary<Ids>;
    // Pairs that differ in one id, and pairs that differ anywhere.
    const oneChanged = fc.tuple(ids, fc.integer({ min: 0, max: 4 }), id).map(([a, at, other]) => {
      const b = [...a] as Ids;
      b[at] = other;
      return [a, b] as const;
    });
    fc.assert(
      fc.property(fc.oneof(oneChanged, fc.tuple(ids, ids)), ([a, b]) => {
        expect(nameOf(a)).toMatch(/^[A-Za-z0-9%-]+\.x12$/);
        expect(nameOf(a) === nameOf(b)).toBe(JSON.stringify(a) === JSON.stringify(b));
      }),
      { numRuns: 2000 },
    );
  });
});
