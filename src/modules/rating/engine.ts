import Big from 'big.js';
import { findZip3Place, greatCircleMiles } from './geography.js';
import { BASE_CHARGE, FUEL_CHARGE, type CompiledCard, type CompiledService, type ParcelFacts, type Rounding } from './rate-card.compile.js';

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
  /** What produced it: a card path and the values it used. */
  rule: string;
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
const HUNDRED = new Big(100);

function roundTo(value: Big, rounding: Rounding | undefined): Big {
  if (!rounding) return value;
  return value
    .div(rounding.increment)
    .round(0, rounding.mode === 'up' ? ROUND_UP : ROUND_HALF_UP)
    .times(rounding.increment);
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
  for (const service of card.services) {
    const priced = priceService(card, service, parcel, zone.zone, context);
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

function factsOf(card: CompiledCard, service: CompiledService, parcel: Parcel, zone: number): ParcelFacts {
  const sides = [parcel.length, parcel.width, parcel.height]
    .map((side) => roundTo(new Big(side), service.sideRounding))
    .sort((a, b) => b.cmp(a)) as [Big, Big, Big];
  return {
    actualWeight: new Big(parcel.weight),
    sides,
    lengthPlusGirth: sides[0].plus(sides[1].plus(sides[2]).times(2)),
    cubicSize: sides[0].times(sides[1]).times(sides[2]),
    zone,
    destZip: parcel.destZip,
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
  const candidates = card.surcharges
    .filter((s) => (!s.services || s.services.has(service.name)) && inWindow(date, s.window) && s.applies(facts))
    .flatMap((surcharge) => {
      const priced = surcharge.amountIn(facts.zone);
      return priced ? [{ surcharge, ...priced }] : [];
    });
  const suppressed = new Set(candidates.flatMap((c) => [...c.surcharge.suppresses]));
  const kept = candidates.filter((c) => !suppressed.has(c.surcharge.name));
  // Of a group, the highest is charged; of equal highest, the first in the card.
  const highest = new Map<string, (typeof kept)[number]>();
  for (const c of kept) {
    const group = c.surcharge.group;
    if (group && !(highest.get(group)?.amount.gte(c.amount) ?? false)) highest.set(group, c);
  }
  return kept.filter((c) => !c.surcharge.group || highest.get(c.surcharge.group) === c);
}

function weighParcel(service: CompiledService, facts: ParcelFacts): Weights {
  const rated = roundTo(facts.actualWeight, service.weightRounding);
  const dimensionalCounts =
    service.dimDivisor !== undefined && (service.dimMinCubicSize === undefined || facts.cubicSize.gt(service.dimMinCubicSize));
  const dimensional = dimensionalCounts ? roundTo(facts.cubicSize.div(service.dimDivisor!), service.weightRounding) : undefined;
  return {
    sides: facts.sides,
    actual: facts.actualWeight,
    rated,
    dimensional,
    billable: dimensional ? max(rated, dimensional) : rated,
  };
}

/** The base rate of a billable weight in a zone column; undefined beyond the table without a per-unit rate. */
function baseRate(service: CompiledService, column: number, billable: Big): { amount: Big; rule: string } | undefined {
  const index = service.breaks.findIndex((row) => billable.lte(row.upTo));
  if (index >= 0) {
    const row = service.breaks[index]!;
    return {
      amount: row.prices[column]!,
      rule: `${service.rule}.rates.breaks[${index}] (up to ${text(row.upTo)}) × zone ${service.zones[column]}`,
    };
  }
  if (!service.beyondPerUnit) return undefined;
  const last = service.breaks[service.breaks.length - 1]!;
  const perUnit = service.beyondPerUnit[column]!;
  const extra = billable.minus(last.upTo);
  return {
    amount: last.prices[column]!.plus(extra.times(perUnit)),
    rule: `${service.rule}.rates.breaks[${service.breaks.length - 1}] + ${text(extra)} × ${text(perUnit)} (beyondLastBreak) × zone ${service.zones[column]}`,
  };
}

function priceService(
  card: CompiledCard,
  service: CompiledService,
  parcel: Parcel,
  zone: number,
  context: QuoteContext,
): ServiceQuote | ServiceRefusal {
  const facts = factsOf(card, service, parcel, zone);
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
      rule: `${service.rule}.minimumCharge (the rate ${text(base.amount)} of ${base.rule} is less)`,
    });
  } else {
    costs.push({ name: BASE_CHARGE, cost: base.amount, rule: base.rule });
  }
  for (const { surcharge, amount, rule } of surcharges) costs.push({ name: surcharge.name, cost: amount, rule });
  if (card.fuel && card.fuel.percent.gt(ZERO)) {
    const bases = costs.filter((c) => card.fuel!.appliesTo.has(c.name));
    const sum = bases.reduce((total, c) => total.plus(c.cost), ZERO);
    if (sum.gt(ZERO)) {
      costs.push({
        name: FUEL_CHARGE,
        cost: sum.times(card.fuel.percent).div(HUNDRED),
        rule: `fuel: ${text(card.fuel.percent)} % of ${bases.map((c) => c.name).join(' + ')} (${text(sum)})`,
      });
    }
  }
  const markup = card.markupByUserId.get(context.userId) ?? card.markupPercent;
  const factor = HUNDRED.plus(markup).div(HUNDRED);
  const charges = costs.map((c) => ({ ...c, amount: c.cost.times(factor).round(CENTS, ROUND_HALF_UP) }));
  return {
    service: service.name,
    zone,
    weights,
    charges,
    total: charges.reduce((total, c) => total.plus(c.amount), ZERO),
  };
}
