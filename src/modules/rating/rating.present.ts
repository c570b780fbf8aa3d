import type { Scaled } from '../../lib/decimal.js';
import type { CompiledCard } from './rate-card.compile.js';
import { formatCost, type Quotation, type ServiceQuote } from './engine.js';
import { formatMeasure, formatPrice } from './exact.js';
import type { RateEntry, RateResponse } from './rating.schemas.js';

/** A quotation → the spec's envelope (2.2), and the breakdown that /explain adds. */

/** The severities and sources of docs/rating.md's outcome table. */
export const Outcome = {
  quoted: { severity: 0, source: '' },
  warned: { severity: 1, source: 'RateEngine.Zone' },
  badInput: { severity: 2, source: 'RateEngine.Validation' },
  notServiceable: { severity: 3, source: 'RateEngine.Service' },
  notAuthorized: { severity: 4, source: 'RateEngine.Auth' },
  tooManyRequests: { severity: 4, source: 'RateEngine.RateLimit' },
  internal: { severity: 5, source: 'RateEngine.Internal' },
} as const;

export type OutcomeName = keyof typeof Outcome;

/** The outcome an answer's severity stands for; severity 4 is the key's (a 429 names its own). */
export function outcomeOfSeverity(severity: number): OutcomeName {
  const names = Object.keys(Outcome) as OutcomeName[];
  return names.find((name) => Outcome[name].severity === severity) ?? 'internal';
}

/** The envelope of an answer that quotes nothing. */
export function failureEnvelope(outcome: OutcomeName, message: string): RateResponse {
  return {
    Result: [],
    Page: null,
    ErrorMsg: message,
    ErrorSeverity: Outcome[outcome].severity,
    ErrorSource: Outcome[outcome].source,
    Status: false,
  };
}

function entryOf(card: CompiledCard, quote: ServiceQuote, name: string, cents: bigint): RateEntry {
  const Price = formatPrice(cents);
  return card.details ? { name, Price, Zone: quote.zone, BillableWeight: formatMeasure(quote.weights.billable) } : { name, Price };
}

function entriesOf(card: CompiledCard, quotes: ServiceQuote[]): RateEntry[] {
  if (card.result === 'perService') return quotes.map((quote) => entryOf(card, quote, quote.service, quote.total));
  return quotes.flatMap((quote) => quote.charges.map((charge) => entryOf(card, quote, `${quote.service} - ${charge.name}`, charge.amount)));
}

export function presentQuotation(card: CompiledCard, quotation: Quotation): RateResponse {
  if (quotation.notServiceable !== undefined) return failureEnvelope('notServiceable', quotation.notServiceable);
  const outcome = quotation.warning ? Outcome.warned : Outcome.quoted;
  return {
    Result: entriesOf(card, quotation.quotes),
    Page: null,
    ErrorMsg: quotation.warning ?? '',
    ErrorSeverity: outcome.severity,
    ErrorSource: outcome.source,
    Status: true,
  };
}

/** Which card priced the quote, for the breakdown. */
export interface CardInForce {
  version: number;
  userId: number;
  date: string;
  markupPercent: Scaled;
}

/** What an operator needs to answer "why does this cost 14.20?". */
export function presentExplanation(card: CompiledCard, inForce: CardInForce, quotation: Quotation) {
  return {
    Card: {
      Name: card.name,
      Version: inForce.version,
      BoundToUserID: inForce.userId === 0 ? null : inForce.userId,
      Date: inForce.date,
      Currency: card.currency,
      Units: card.units,
      AssumeResidential: card.assumeResidential,
      MarkupPercent: formatMeasure(inForce.markupPercent),
    },
    Zone: quotation.zone
      ? { Zone: quotation.zone.zone, Source: quotation.zone.source, Rule: quotation.zone.rule, Miles: quotation.zone.miles ?? null }
      : null,
    Services: [
      ...quotation.quotes.map((quote) => ({
        Service: quote.service,
        Quoted: true,
        Zone: quote.zone,
        Weights: {
          Sides: quote.weights.sides.map(formatMeasure),
          Actual: formatMeasure(quote.weights.actual),
          Rated: formatMeasure(quote.weights.rated),
          Dimensional: quote.weights.dimensional === undefined ? null : formatMeasure(quote.weights.dimensional),
          Billable: formatMeasure(quote.weights.billable),
          MinimumFrom: quote.weights.minimumFrom ?? null,
        },
        Charges: quote.charges.map((charge) => ({
          Name: charge.name,
          Cost: formatCost(charge.cost),
          Amount: formatPrice(charge.amount),
          Rule: charge.rule(),
        })),
        Total: formatPrice(quote.total),
      })),
      ...quotation.refusals.map((refusal) => ({ Service: refusal.service, Quoted: false, Reason: refusal.reason })),
    ],
  };
}
