import { asScaled, isWithinDecimalRange, parseDecimal, type Scaled } from '../../lib/decimal.js';
import { divideRounded, divideRoundedBig, formatAmount, formatMeasure, SCALE_BIG, toCents } from './exact.js';
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
 * The last-mile rate engine (docs/rating.md): a pure, deterministic function of a parcel, a compiled
 * rate card and a date. No I/O. Every amount is exact (./exact.ts: scaled integers, money in
 * bigints); each charge line is rounded half-up to cents once, at the end, so the lines of a
 * service sum exactly to its total.
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

/** The digits of a charge's cost before markup: prices (10⁴) × weights (10⁴) × fuel % (10⁴) ÷ 100. */
export const COST_DIGITS = 14;
const COST_SCALE = 10n ** BigInt(COST_DIGITS);
/** A price or surcharge (10⁴) as a cost (10¹⁴). */
const MONEY_TO_COST = COST_SCALE / SCALE_BIG;

export interface ChargeLine {
  name: string;
  /** In cents, markup included, rounded half-up. */
  amount: bigint;
  /** Before markup and rounding, at 10^COST_DIGITS. */
  cost: bigint;
  /** What produced it: a card path and the values it used (written only when someone asks). */
  rule: () => string;
}

/** Sizes and weights, scaled (lib/decimal). */
export interface Weights {
  sides: [Scaled, Scaled, Scaled];
  actual: Scaled;
  /** Rounded actual weight. */
  rated: Scaled;
  dimensional?: Scaled;
  billable: Scaled;
  /** A surcharge raised the billable weight to its minimum. */
  minimumFrom?: string;
}

export interface ServiceQuote {
  service: string;
  zone: number;
  weights: Weights;
  charges: ChargeLine[];
  /** In cents. */
  total: bigint;
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

/** 100 % at 10⁴, as markups and fuel percentages are scaled. */
const HUNDRED_PERCENT = 100n * SCALE_BIG;

function roundTo(value: Scaled, rounding: Rounding | undefined): Scaled {
  if (!rounding) return value;
  return asScaled(divideRounded(value, rounding.increment, rounding.mode) * rounding.increment);
}

const text = formatMeasure;

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
    sides: [parseDecimal(parcel.length), parseDecimal(parcel.width), parseDecimal(parcel.height)],
    weight: parseDecimal(parcel.weight),
  };
  for (const service of card.services) {
    const priced = priceService(card, service, parcel.destZip, measured, zone.zone, context);
    if ('reason' in priced) refusals.push(priced);
    else insertCheapestFirst(quotes, priced);
  }
  const quotation: Quotation = { zone, quotes, refusals };
  if (quotes.length === 0) quotation.notServiceable = refusals.map((r) => `${r.service}: ${r.reason}`).join('; ');
  if (card.flagEstimatedZones && zone.source === 'distance') {
    quotation.warning = `zone ${zone.zone} was estimated from the ${zone.miles} miles between ZIP3 ${parcel.originZip.slice(0, 3)} and ${parcel.destZip.slice(0, 3)}`;
  }
  return quotation;
}

/** Inserts `quote` after every quote that costs no more: cheapest first, the card's order among equal totals. */
function insertCheapestFirst(quotes: ServiceQuote[], quote: ServiceQuote): void {
  let at = quotes.length;
  while (at > 0 && quotes[at - 1]!.total > quote.total) at -= 1;
  quotes.splice(at, 0, quote);
}

/** The parcel's sides and weight, read once per quote. */
interface Measured {
  sides: [Scaled, Scaled, Scaled];
  weight: Scaled;
}

/** Three sides, longest first (without sorting an array on every quote). */
function longestFirst(a: Scaled, b: Scaled, c: Scaled): [Scaled, Scaled, Scaled] {
  if (a < b) [a, b] = [b, a];
  if (b < c) [b, c] = [c, b];
  if (a < b) [a, b] = [b, a];
  return [a, b, c];
}

function factsOf(card: CompiledCard, service: CompiledService, destZip: string, measured: Measured, zone: number): ParcelFacts {
  const rounding = service.sideRounding;
  const sides = longestFirst(
    roundTo(measured.sides[0], rounding),
    roundTo(measured.sides[1], rounding),
    roundTo(measured.sides[2], rounding),
  );
  return {
    actualWeight: measured.weight,
    sides,
    lengthPlusGirth: asScaled(sides[0] + 2 * (sides[1] + sides[2])),
    cubicSize: BigInt(sides[0]) * BigInt(sides[1]) * BigInt(sides[2]),
    zone,
    destZip,
    residential: card.assumeResidential,
  };
}

function refusalOf(service: CompiledService, facts: ParcelFacts, unit: { length: string; weight: string }): string | undefined {
  if (service.maxWeight !== undefined && facts.actualWeight > service.maxWeight) {
    return `the weight ${text(facts.actualWeight)} ${unit.weight} is over the limit of ${text(service.maxWeight)} ${unit.weight}`;
  }
  if (service.maxLength !== undefined && facts.sides[0] > service.maxLength) {
    return `the longest side ${text(facts.sides[0])} ${unit.length} is over the limit of ${text(service.maxLength)} ${unit.length}`;
  }
  if (service.maxLengthPlusGirth !== undefined && facts.lengthPlusGirth > service.maxLengthPlusGirth) {
    return `length + girth ${text(facts.lengthPlusGirth)} ${unit.length} is over the limit of ${text(service.maxLengthPlusGirth)} ${unit.length}`;
  }
  if (service.serviceArea && !service.serviceArea(facts)) return `${facts.destZip} in zone ${facts.zone} is outside its service area`;
  if (!service.zones.includes(facts.zone)) return `it has no prices for zone ${facts.zone}`;
  return undefined;
}

/** The surcharges that apply, after suppression and keeping the highest of each group. */
function applicableSurcharges(card: CompiledCard, service: CompiledService, facts: ParcelFacts, date: string) {
  const candidates: { surcharge: CompiledSurcharge; amount: bigint; rule: string }[] = [];
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
  if (!kept.some((c) => c.surcharge.group)) return kept;
  // Of a group, the highest is charged; of equal highest, the first in the card.
  const highest = new Map<string, (typeof kept)[number]>();
  for (const c of kept) {
    const group = c.surcharge.group;
    const best = group && highest.get(group);
    if (group && !(best && best.amount >= c.amount)) highest.set(group, c);
  }
  return kept.filter((c) => !c.surcharge.group || highest.get(c.surcharge.group) === c);
}

/** The dimensional weight, when it counts: L × W × H ÷ divisor, rounded as the card rounds weights. */
function dimensionalWeight(service: CompiledService, facts: ParcelFacts): bigint | undefined {
  const divisor = service.dimDivisor;
  if (divisor === undefined || (service.dimMinCubicSize !== undefined && !(facts.cubicSize > service.dimMinCubicSize))) {
    return undefined;
  }
  // The cubic size is at 10¹², the divisor and the increment at 10⁴: their product × 10⁴ divides it
  // into a count of increments. A card with a divisor rounds weights (the compiler sees to it).
  const rounding = service.weightRounding!;
  const increment = BigInt(rounding.increment);
  return divideRoundedBig(facts.cubicSize, BigInt(divisor) * increment * SCALE_BIG, rounding.mode) * increment;
}

function weighParcel(service: CompiledService, facts: ParcelFacts): Weights | undefined {
  const rated = roundTo(facts.actualWeight, service.weightRounding);
  const dimensional = dimensionalWeight(service, facts);
  // A weight past the range of a quantity has no price: only a card without size limits meets one.
  if (dimensional !== undefined && !isWithinDecimalRange(Number(dimensional))) return undefined;
  const dim = dimensional === undefined ? undefined : asScaled(Number(dimensional));
  return {
    sides: facts.sides,
    actual: facts.actualWeight,
    rated,
    dimensional: dim,
    billable: dim !== undefined && dim > rated ? dim : rated,
  };
}

/** The first weight break whose upTo is at least `billable` (a binary search), or -1 beyond the last. */
function breakIndex(service: CompiledService, billable: Scaled): number {
  let low = 0;
  let high = service.breaks.length - 1;
  if (billable > service.breaks[high]!.upTo) return -1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (billable <= service.breaks[middle]!.upTo) high = middle;
    else low = middle + 1;
  }
  return low;
}

/** The base rate (a cost) of a billable weight in a zone column; undefined beyond the table without a per-unit rate. */
function baseRate(service: CompiledService, column: number, billable: Scaled): { cost: bigint; rule: () => string } | undefined {
  const zone = service.zones[column];
  const index = breakIndex(service, billable);
  if (index >= 0) {
    const row = service.breaks[index]!;
    return {
      cost: row.prices[column]! * MONEY_TO_COST,
      rule: () => `${service.rule}.rates.breaks[${index}] (up to ${text(row.upTo)}) × zone ${zone}`,
    };
  }
  if (!service.beyondPerUnit) return undefined;
  const lastIndex = service.breaks.length - 1;
  const last = service.breaks[lastIndex]!;
  const perUnit = service.beyondPerUnit[column]!;
  const extra = billable - last.upTo;
  // price (10⁴) + extra weight (10⁴) × price a unit (10⁴) = a cost at 10⁸, raised to 10¹⁴.
  const cost = (last.prices[column]! * SCALE_BIG + BigInt(extra) * perUnit) * (COST_SCALE / SCALE_BIG ** 2n);
  return {
    cost,
    rule: () => `${service.rule}.rates.breaks[${lastIndex}] + ${text(extra)} × ${formatMoney(perUnit)} (beyondLastBreak) × zone ${zone}`,
  };
}

const formatMoney = (amount: bigint) => text(Number(amount));
/** A cost (10¹⁴) as plain decimal text: "26.553875". */
export const formatCost = (cost: bigint) => formatAmount(cost, COST_DIGITS);

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
  if (!weights) return { service: service.name, reason: `the dimensional weight is beyond any price` };
  const surcharges = applicableSurcharges(card, service, facts, context.date);
  for (const { surcharge } of surcharges) {
    if (surcharge.minBillableWeight !== undefined && surcharge.minBillableWeight > weights.billable) {
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
  const minimum = service.minimumCharge === undefined ? undefined : service.minimumCharge * MONEY_TO_COST;
  if (minimum !== undefined && minimum > base.cost) {
    costs.push({
      name: BASE_CHARGE,
      cost: minimum,
      rule: () => `${service.rule}.minimumCharge (the rate ${formatCost(base.cost)} of ${base.rule()} is less)`,
    });
  } else {
    costs.push({ name: BASE_CHARGE, cost: base.cost, rule: base.rule });
  }
  for (const { surcharge, amount, rule } of surcharges) {
    costs.push({ name: surcharge.name, cost: amount * MONEY_TO_COST, rule: () => rule });
  }
  const fuel = card.fuel;
  if (fuel && fuel.percent > 0) {
    const bases = costs.filter((c) => fuel.appliesTo.has(c.name));
    const sum = bases.reduce((total, c) => total + c.cost, 0n);
    if (sum > 0n) {
      costs.push({
        name: FUEL_CHARGE,
        // A cost (10¹⁴) × a percentage (10⁴) ÷ 100 % (10⁶) stays exact only because the cost keeps
        // six more digits than a price: see COST_DIGITS.
        cost: (sum * BigInt(fuel.percent)) / HUNDRED_PERCENT,
        rule: () => `fuel: ${text(fuel.percent)} % of ${bases.map((c) => c.name).join(' + ')} (${formatCost(sum)})`,
      });
    }
  }
  const withMarkup = HUNDRED_PERCENT + BigInt(card.markupByUserId.get(context.userId) ?? card.markupPercent);
  const charges: ChargeLine[] = costs.map((c) => ({
    name: c.name,
    cost: c.cost,
    // cost × (100 % + markup) ÷ 100 %: at 10¹⁴ × 10⁴ ÷ 10⁶ = 10¹², then half-up to cents.
    amount: toCents(c.cost * withMarkup, COST_DIGITS + 6),
    rule: c.rule,
  }));
  return {
    service: service.name,
    zone,
    weights,
    charges,
    total: charges.reduce((total, c) => total + c.amount, 0n),
  };
}
