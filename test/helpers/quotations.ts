import type { Quotation } from '../../src/modules/rating/engine.js';

/** A quotation whose charge rules are written out, so that two quotations compare as data. */
export function withRulesWritten(quotation: Quotation) {
  return {
    ...quotation,
    quotes: quotation.quotes.map((quote) => ({ ...quote, charges: quote.charges.map((charge) => ({ ...charge, rule: charge.rule() })) })),
  };
}
