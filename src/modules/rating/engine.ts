import Big from 'big.js';
import { findZip3Place, greatCircleMiles } from './geography.js';
import {
  BASE_CHARGE,
  FUEL_CHARGE,
  type CompiledCard,
  type CompiledService,
  type CompiledSurcharge,
  type ParcelFacts,
  type Rounding,
} from './rate-card.compile.js';

/**
 * The last-mile rate engine (DESIGN §9): a pure, deterministic function of a parcel, a compiled
 * rate card and a date. No I/O. Every amount is an exact decimal (big.js); each charge line is
 * rounded half-up to cents once, at the end, so the lines of a service sum exactly to its total.
 *
 * Per service: limits → billable weight (actual vs dimensional) → surcharges that apply (their
 * minimum billable weights) → base rate (zone × weight break) → minimum charge → surcharge amounts
 * → fuel on its bases → markup on every line → round each line.
 */

/** A parcel as the request gives it: ZIPs of five digits, decimals already checked. */
export interface Parcel {
  originZip: string;
  destZip: string;
  length: string;
  width: string;
  height: string;
  weight: string;
}

export interface QuoteContext {
  /** The quote's day, yyyy-MM-dd, in the card's time zone. */
  date: string;
  userId: number;
}

export interface ZoneFinding {
  zone: number;
  /** How the zone was found, in the order the engine looks. */
  source: 'exception' | 'override' | 'chart' | 'distance';
  /** The card rule that gave it, e.g. `zones.distanceBands[3]`. */
  rule: string;
  /** Great-circle miles between the ZIP3 centroids, when the zone came from distance. */
  miles?: number;
}

export interface ChargeLine {
  name: string;
  /** Rounded to cents, markup included. */
  amount: Big;
  /** Before markup and rounding. */
  cost: Big;
  /** What produced it: a card path and the values it used (written only when someone asks). */
  rule: () => string;
}

export interface Weights {
  sides: [Big, Big, Big];
  actual: Big;
  /** Rounded actual weight. */
  rated: Big;
  dimensional?: Big;
  billable: Big;
  /** A surcharge raised the billable weight to its minimum. */
  minimumFrom?: string;
}

export interface ServiceQuote {
  service: string;
  zone: number;
  weights: Weights;
  charges: ChargeLine[];
  total: Big;
}

export interface ServiceRefusal {
  service: string;
  reason: string;
}

export interface Quotation {
  zone?: ZoneFinding;
  /** Cheapest first; among equal totals, in the card's order. */
  quotes: ServiceQuote[];
  refusals: ServiceRefusal[];
  /** Why no service could be quoted, when none could. */
  notServiceable?: string;
  /** A warning the card asks for (an estimated zone). */
  warning?: string;
}

const ROUND_HALF_UP = 1;
const ROUND_UP = 3;
const CENTS = 2;
const ZERO = new Big(0);
const ONE = new Big(1);

/** Integer division: a Big whose operations keep no fractional digits and round down. */
const Whole = Big();
Whole.DP = 0;
Whole.RM = 0;

/** `value / divisor` rounded to a multiple of the increment, exactly: no quotient is ever cut short. */
function divideRounded(value: Big, divisor: Big, rounding: Rounding): Big {
  const unit = rounding.whole ? divisor : divisor.times(rounding.increment);
  const quotient = new Whole(value).div(unit);
  const remainder = value.minus(quotient.times(unit));
  const roundsUp = rounding.mode === 'up' ? remainder.gt(0) : remainder.times(2).gte(unit);
  const rounded = roundsUp ? quotient.plus(1) : quotient;
  return rounding.whole ? rounded : rounded.times(rounding.increment);
}

function roundTo(value: Big, rounding: Rounding | undefined): Big {
  if (!rounding) return value;
  if (rounding.whole) return value.round(0, rounding.mode === 'up' ? ROUND_UP : ROUND_HALF_UP);
  return divideRounded(value, ONE, rounding);
}

const max = (a: Big, b: Big) => (a.gte(b) ? a : b);
const text = (value: Big) => value.toString();

/** Finds the zone: 5-digit exceptions, then overrides, then the chart, then distance bands. */
export function findZone(card: CompiledCard, originZip: string, destZip: string): ZoneFinding | undefined {
  const destState = findZip3Place(destZip.slice(0, 3))?.state;
  const ruleMatches = (rule: CompiledCard['zoneRules']['exceptions'][number]) =>
    (!rule.origins || rule.origins.matches(originZip)) &&
    (!rule.destinations || rule.destinations.matches(destZip)) &&
    (!rule.states || (destState !== undefined && rule.states.has(destState)));
  const exception = card.zoneRules.exceptions.find(ruleMatches);
  if (exception) return { zone: exception.zone, source: 'exception', rule: exception.rule };
  const override = card.zoneRules.overrides.find(ruleMatches);
  if (override) return { zone: override.zone, source: 'override', rule: override.rule };
  for (const part of card.chart) {
    if (!part.origins.matches(originZip)) continue;
    const row = part.destinations.find((d) => d.zips.matches(destZip));
    if (row) return { zone: row.zone, source: 'chart', rule: row.rule };
  }
  const from = findZip3Place(originZip.slice(0, 3));
  const to = findZip3Place(destZip.slice(0, 3));
  if (!from || !to || card.distanceBands.length === 0) return undefined;
  const miles = greatCircleMiles(from, to);
  const band = card.distanceBands.find((b) => b.upToMiles === undefined || miles <= b.upToMiles);
  return band && { zone: band.zone, source: 'distance', rule: band.rule, miles };
}

function unknownZoneReason(card: CompiledCard, parcel: Parcel): string {
  const route = `no zone for ${parcel.originZip} to ${parcel.destZip}`;
  const unknown = [...new Set([parcel.originZip, parcel.destZip].map((zip) => zip.slice(0, 3)))].filter((zip3) => !findZip3Place(zip3));
  if (unknown.length > 0) {
    const named = unknown.length === 1 ? `ZIP3 ${unknown[0]} is` : `ZIP3s ${unknown.join(' and ')} are`;
    return `${route}: ${named} in neither the rate card's zone rules nor the ZIP geography`;
  }
  return card.distanceBands.length === 0
    ? `${route}: the rate card's zone chart does not cover them`
    : `${route}: the distance is beyond the rate card's last distance band`;
}

const inWindow = (date: string, window: { from: string; to?: string } | undefined) =>
  !window || (date >= window.from && (window.to === undefined || date <= window.to));

/** Prices every service of the card for the parcel. */
export function quoteParcel(card: CompiledCard, parcel: Parcel, context: QuoteContext): Quotation {
  const zone = findZone(card, parcel.originZip, parcel.destZip);
  if (!zone) return { quotes: [], refusals: [], notServiceable: unknownZoneReason(card, parcel) };

  const quotes: ServiceQuote[] = [];
  const refusals: ServiceRefusal[] = [];
  const measured: Measured = {
    sides: [new Big(parcel.length), new Big(parcel.width), new Big(parcel.height)],
    weight: new Big(parcel.weight),
  };
  for (const service of card.services) {
    const priced = priceService(card, service, parcel.destZip, measured, zone.zone, context);
    if ('reason' in priced) refusals.push(priced);
    else quotes.push(priced);
  }
  // A stable sort keeps the card's order among equal totals.
  quotes.sort((a, b) => a.total.cmp(b.total));
  const quotation: Quotation = { zone, quotes, refusals };
  if (quotes.length === 0) quotation.notServiceable = refusals.map((r) => `${r.service}: ${r.reason}`).join('; ');
  if (card.flagEstimatedZones && zone.source === 'distance') {
    quotation.warning = `zone ${zone.zone} was estimated from the ${zone.miles} miles between ZIP3 ${parcel.originZip.slice(0, 3)} and ${parcel.destZip.slice(0, 3)}`;
  }
  return quotation;
}

/** The parcel's sides and weight, read once per quote. */
interface Measured {
  sides: Big[];
  weight: Big;
}

function factsOf(card: CompiledCard, service: CompiledService, destZip: string, measured: Measured, zone: number): ParcelFacts {
  const sides = measured.sides.map((side) => roundTo(side, service.sideRounding)).sort((a, b) => b.cmp(a)) as [Big, Big, Big];
  return {
    actualWeight: measured.weight,
    sides,
    lengthPlusGirth: sides[0].plus(sides[1].plus(sides[2]).times(2)),
    cubicSize: sides[0].times(sides[1]).times(sides[2]),
    zone,
    destZip,
    residential: card.assumeResidential,
  };
}

function refusalOf(service: CompiledService, facts: ParcelFacts, unit: { length: string; weight: string }): string | undefined {
  if (service.maxWeight && facts.actualWeight.gt(service.maxWeight)) {
    return `the weight ${text(facts.actualWeight)} ${unit.weight} is over the limit of ${text(service.maxWeight)} ${unit.weight}`;
  }
  if (service.maxLength && facts.sides[0].gt(service.maxLength)) {
    return `the longest side ${text(facts.sides[0])} ${unit.length} is over the limit of ${text(service.maxLength)} ${unit.length}`;
  }
  if (service.maxLengthPlusGirth && facts.lengthPlusGirth.gt(service.maxLengthPlusGirth)) {
    return `length + girth ${text(facts.lengthPlusGirth)} ${unit.length} is over the limit of ${text(service.maxLengthPlusGirth)} ${unit.length}`;
  }
  if (service.serviceArea && !service.serviceArea(facts)) return `${facts.destZip} in zone ${facts.zone} is outside its service area`;
  if (!service.zones.includes(facts.zone)) return `it has no prices for zone ${facts.zone}`;
  return undefined;
}

/** The surcharges that apply, after suppression and keeping the highest of each group. */
function applicableSurcharges(card: CompiledCard, service: CompiledService, facts: ParcelFacts, date: string) {
  const candidates: { surcharge: CompiledSurcharge; amount: Big; rule: string }[] = [];
  let suppressed: Set<string> | undefined;
  for (const surcharge of card.surcharges) {
    if ((surcharge.services && !surcharge.services.has(service.name)) || !inWindow(date, surcharge.window) || !surcharge.applies(facts)) {
      continue;
    }
    const priced = surcharge.amountIn(facts.zone);
    if (!priced) continue;
    candidates.push({ surcharge, amount: priced.amount, rule: priced.rule });
    for (const name of surcharge.suppresses) (suppressed ??= new Set()).add(name);
  }
  const kept = suppressed ? candidates.filter((c) => !suppressed.has(c.surcharge.name)) : candidates;
  // Of a group, the highest is charged; of equal highest, the first in the card.
  const highest = new Map<string, (typeof kept)[number]>();
  for (const c of kept) {
    const group = c.surcharge.group;
    if (group && !(highest.get(group)?.amount.gte(c.amount) ?? false)) highest.set(group, c);
  }
  return highest.size === 0 ? kept : kept.filter((c) => !c.surcharge.group || highest.get(c.surcharge.group) === c);
}

function weighParcel(service: CompiledService, facts: ParcelFacts): Weights {
  const rated = roundTo(facts.actualWeight, service.weightRounding);
  const dimensionalCounts =
    service.dimDivisor !== undefined && (service.dimMinCubicSize === undefined || facts.cubicSize.gt(service.dimMinCubicSize));
  // A card with a dimensional divisor rounds weights (the compiler sees to it), so the quotient is exact.
  const dimensional = dimensionalCounts ? divideRounded(facts.cubicSize, service.dimDivisor!, service.weightRounding!) : undefined;
  return {
    sides: facts.sides,
    actual: facts.actualWeight,
    rated,
    dimensional,
    billable: dimensional ? max(rated, dimensional) : rated,
  };
}

/** The first weight break whose upTo is at least `billable` (a binary search), or -1 beyond the last. */
function breakIndex(service: CompiledService, billable: Big): number {
  let low = 0;
  let high = service.breaks.length - 1;
  if (billable.gt(service.breaks[high]!.upTo)) return -1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (billable.lte(service.breaks[middle]!.upTo)) high = middle;
    else low = middle + 1;
  }
  return low;
}

/** The base rate of a billable weight in a zone column; undefined beyond the table without a per-unit rate. */
function baseRate(service: CompiledService, column: number, billable: Big): { amount: Big; rule: () => string } | undefined {
  const zone = service.zones[column];
  const index = breakIndex(service, billable);
  if (index >= 0) {
    const row = service.breaks[index]!;
    return { amount: row.prices[column]!, rule: () => `${service.rule}.rates.breaks[${index}] (up to ${text(row.upTo)}) × zone ${zone}` };
  }
  if (!service.beyondPerUnit) return undefined;
  const lastIndex = service.breaks.length - 1;
  const last = service.breaks[lastIndex]!;
  const perUnit = service.beyondPerUnit[column]!;
  const extra = billable.minus(last.upTo);
  return {
    amount: last.prices[column]!.plus(extra.times(perUnit)),
    rule: () => `${service.rule}.rates.breaks[${lastIndex}] + ${text(extra)} × ${text(perUnit)} (beyondLastBreak) × zone ${zone}`,
  };
}

function priceService(
  card: CompiledCard,
  service: CompiledService,
  destZip: string,
  measured: Measured,
  zone: number,
  context: QuoteContext,
): ServiceQuote | ServiceRefusal {
  const facts = factsOf(card, service, destZip, measured, zone);
  const refusal = refusalOf(service, facts, card.units);
  if (refusal) return { service: service.name, reason: refusal };

  const weights = weighParcel(service, facts);
  const surcharges = applicableSurcharges(card, service, facts, context.date);
  for (const { surcharge } of surcharges) {
    if (surcharge.minBillableWeight && surcharge.minBillableWeight.gt(weights.billable)) {
      weights.billable = surcharge.minBillableWeight;
      weights.minimumFrom = surcharge.name;
    }
  }
  const column = service.zones.indexOf(zone);
  const base = baseRate(service, column, weights.billable);
  if (!base) {
    const last = service.breaks[service.breaks.length - 1]!.upTo;
    return {
      service: service.name,
      reason: `the billable weight ${text(weights.billable)} ${card.units.weight} is beyond its heaviest rate (${text(last)} ${card.units.weight})`,
    };
  }
  const costs: Omit<ChargeLine, 'amount'>[] = [];
  if (service.minimumCharge && service.minimumCharge.gt(base.amount)) {
    costs.push({
      name: BASE_CHARGE,
      cost: service.minimumCharge,
      rule: () => `${service.rule}.minimumCharge (the rate ${text(base.amount)} of ${base.rule()} is less)`,
    });
  } else {
    costs.push({ name: BASE_CHARGE, cost: base.amount, rule: base.rule });
  }
  for (const { surcharge, amount, rule } of surcharges) costs.push({ name: surcharge.name, cost: amount, rule: () => rule });
  const fuel = card.fuel;
  if (fuel && fuel.percent.gt(ZERO)) {
    const bases = costs.filter((c) => fuel.appliesTo.has(c.name));
    const sum = bases.reduce((total, c) => total.plus(c.cost), ZERO);
    if (sum.gt(ZERO)) {
      costs.push({
        name: FUEL_CHARGE,
        cost: sum.times(fuel.factor),
        rule: () => `fuel: ${text(fuel.percent)} % of ${bases.map((c) => c.name).join(' + ')} (${text(sum)})`,
      });
    }
  }
  const factor = card.markupFactorByUserId.get(context.userId) ?? card.markupFactor;
  const charges: ChargeLine[] = costs.map((c) => ({
    name: c.name,
    cost: c.cost,
    amount: c.cost.times(factor).round(CENTS, ROUND_HALF_UP),
    rule: c.rule,
  }));
  return {
    service: service.name,
    zone,
    weights,
    charges,
    total: charges.reduce((total, c) => total.plus(c.amount), ZERO),
  };
}
