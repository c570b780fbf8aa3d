import { DateTime, IANAZone } from 'luxon';
import { parseDecimal, SCALE, type Scaled } from '../../lib/decimal.js';
import { inputProblems } from '../../lib/validate.js';
import type { RoundingMode } from './exact.js';
import { RateCardSchema, type Condition, type RateCard } from './rate-card.schemas.js';
import { compileZipPatterns, rangeProblem, type ZipMatcher } from './zip-patterns.js';

/**
 * Turns a rate card file's content into what the engine prices with: every rule checked (the
 * schema, then what a schema cannot say: table shapes, names that refer to each other, ranges),
 * every decimal read exactly, every ZIP list compiled into a matcher. A card with a mistake is
 * refused as a whole, each problem naming its path in the card.
 */

export class RateCardError extends Error {
  constructor(readonly problems: string[]) {
    super(`The rate card has ${problems.length} problem${problems.length === 1 ? '' : 's'}: ${problems.join('; ')}`);
  }
}

/**
 * The card's numbers, compiled: sizes and weights are scaled numbers (lib/decimal: × 10⁴), money a
 * bigint at 10⁴, percentages scaled numbers; the cubic size a bigint at 10¹² (three sides multiplied).
 */
export interface Rounding {
  increment: Scaled;
  mode: RoundingMode;
}

export type CompiledCondition = (facts: ParcelFacts) => boolean;

/** What conditions are evaluated on: the parcel after rounding its sides, and its route. */
export interface ParcelFacts {
  actualWeight: Scaled;
  /** Longest first. */
  sides: [Scaled, Scaled, Scaled];
  lengthPlusGirth: Scaled;
  /** L × W × H at 10¹². */
  cubicSize: bigint;
  zone: number;
  destZip: string;
  residential: boolean;
}

export interface CompiledSurcharge {
  name: string;
  rule: string;
  applies: CompiledCondition;
  /** The amount in a zone and the card path it comes from; undefined where it charges nothing. */
  amountIn(zone: number): { amount: bigint; rule: string } | undefined;
  services?: Set<string>;
  group?: string;
  suppresses: Set<string>;
  minBillableWeight?: Scaled;
  window?: { from: string; to?: string };
}

export interface CompiledService {
  name: string;
  rule: string;
  maxWeight?: Scaled;
  maxLength?: Scaled;
  maxLengthPlusGirth?: Scaled;
  dimDivisor?: Scaled;
  /** At 10¹², as the cubic size. */
  dimMinCubicSize?: bigint;
  sideRounding?: Rounding;
  weightRounding?: Rounding;
  zones: number[];
  breaks: { upTo: Scaled; prices: bigint[] }[];
  beyondPerUnit?: bigint[];
  minimumCharge?: bigint;
  serviceArea?: CompiledCondition;
}

export interface CompiledZoneRule {
  rule: string;
  origins?: ZipMatcher;
  destinations?: ZipMatcher;
  states?: Set<string>;
  zone: number;
}

export interface CompiledCard {
  name: string;
  currency: string;
  units: { length: 'in' | 'cm'; weight: 'lb' | 'kg' };
  effective: { from: string; to?: string };
  timeZone: string;
  assumeResidential: boolean;
  flagEstimatedZones: boolean;
  result: 'perService' | 'perCharge';
  details: boolean;
  markupPercent: Scaled;
  markupByUserId: Map<number, Scaled>;
  zoneRules: { exceptions: CompiledZoneRule[]; overrides: CompiledZoneRule[] };
  chart: { rule: string; origins: ZipMatcher; destinations: { rule: string; zips: ZipMatcher; zone: number }[] }[];
  distanceBands: { rule: string; upToMiles?: number; zone: number }[];
  services: CompiledService[];
  surcharges: CompiledSurcharge[];
  fuel?: { percent: Scaled; appliesTo: Set<string> };
}

/** The charge names the engine writes itself; a surcharge may not take them. */
export const BASE_CHARGE = 'Base';
export const FUEL_CHARGE = 'Fuel';

/** The schema has checked every decimal's digits, so each reads into a scaled integer. */
const scaled = (value: string | number) => parseDecimal(value);
const optionalScaled = (value: string | number | undefined) => (value === undefined ? undefined : scaled(value));
const money = (value: string | number) => BigInt(parseDecimal(value));
const optionalMoney = (value: string | number | undefined) => (value === undefined ? undefined : money(value));
/** A scaled size at 10⁴ as a cubic size at 10¹². */
const CUBIC_SCALE_UP = BigInt(SCALE) ** 2n;

/** Checks and compiles a card; throws RateCardError naming every problem's path. */
export function compileRateCard(content: unknown): CompiledCard {
  const schemaProblems = inputProblems(RateCardSchema, content);
  if (schemaProblems.length > 0) throw new RateCardError(schemaProblems);
  const card = content as RateCard;
  const problems: string[] = [];
  const compiler = new CardCompiler(card, problems);
  const compiled = compiler.compile();
  if (problems.length > 0) throw new RateCardError(problems);
  return compiled;
}

class CardCompiler {
  private readonly serviceNames: Set<string>;
  private readonly surchargeNames: Set<string>;

  constructor(
    private readonly card: RateCard,
    private readonly problems: string[],
  ) {
    this.serviceNames = this.uniqueNames(card.services, 'services');
    this.surchargeNames = this.uniqueNames(card.surcharges ?? [], 'surcharges');
  }

  compile(): CompiledCard {
    const { card } = this;
    this.checkWindow(card.effective, 'effective');
    const timeZone = card.timeZone ?? 'UTC';
    if (!IANAZone.isValidZone(timeZone)) this.problem('timeZone', `must be an IANA time zone such as America/New_York, not ${timeZone}`);
    for (const [name, patterns] of Object.entries(card.zipLists ?? {})) {
      patterns.forEach((pattern, index) => {
        const wrong = pattern.startsWith('@') ? 'must be a ZIP pattern; a list may not name another list' : rangeProblem(pattern);
        if (wrong) this.problem(`zipLists.${name}[${index}]`, wrong);
      });
    }
    const zones = card.zones;
    if (!zones.chart && !zones.distanceBands) this.problem('zones', 'must have a chart or distanceBands (or both)');
    this.checkBands();

    return {
      name: card.name,
      currency: card.currency,
      units: card.units ?? { length: 'in', weight: 'lb' },
      effective: card.effective,
      timeZone,
      assumeResidential: card.assumeResidential ?? false,
      flagEstimatedZones: card.flagEstimatedZones ?? false,
      result: card.result ?? 'perService',
      details: card.details ?? false,
      markupPercent: scaled(card.markup?.percent ?? '0'),
      markupByUserId: new Map(Object.entries(card.markup?.byUserId ?? {}).map(([userId, percent]) => [Number(userId), scaled(percent)])),
      zoneRules: {
        exceptions: (zones.exceptions ?? []).map((rule, i) => this.zoneRule(rule, `zones.exceptions[${i}]`)),
        overrides: (zones.overrides ?? []).map((rule, i) => this.zoneRule(rule, `zones.overrides[${i}]`)),
      },
      chart: (zones.chart ?? []).map((part, i) => ({
        rule: `zones.chart[${i}]`,
        origins: this.zips(part.origins, `zones.chart[${i}].origins`),
        destinations: part.destinations.map((d, j) => ({
          rule: `zones.chart[${i}].destinations[${j}]`,
          zips: this.zips(d.zips, `zones.chart[${i}].destinations[${j}].zips`),
          zone: d.zone,
        })),
      })),
      distanceBands: (zones.distanceBands ?? []).map((band, i) => ({ rule: `zones.distanceBands[${i}]`, ...band })),
      services: card.services.map((service, i) => this.service(service, `services[${i}]`)),
      surcharges: (card.surcharges ?? []).map((surcharge, i) => this.surcharge(surcharge, `surcharges[${i}]`)),
      fuel: card.fuel && this.fuel(card.fuel),
    };
  }

  private problem(path: string, message: string) {
    this.problems.push(`${path} ${message}`);
  }

  private uniqueNames(entries: { name: string }[], path: string): Set<string> {
    const names = new Set<string>();
    entries.forEach(({ name }, i) => {
      if (names.has(name)) this.problem(`${path}[${i}].name`, `${name} is used twice`);
      if (path === 'surcharges' && (name === BASE_CHARGE || name === FUEL_CHARGE)) {
        this.problem(`${path}[${i}].name`, `may not be ${name}, the name of a charge the engine writes itself`);
      }
      names.add(name);
    });
    return names;
  }

  private checkWindow(window: { from: string; to?: string }, path: string) {
    for (const bound of ['from', 'to'] as const) {
      const day = window[bound];
      if (day !== undefined && !DateTime.fromISO(day).isValid) this.problem(`${path}.${bound}`, `${day} is not a date of the calendar`);
    }
    if (window.to !== undefined && window.to < window.from)
      this.problem(`${path}.to`, `${window.to} is before ${path}.from ${window.from}`);
  }

  private checkBands() {
    const bands = this.card.zones.distanceBands ?? [];
    bands.forEach((band, i) => {
      const path = `zones.distanceBands[${i}]`;
      if (band.upToMiles === undefined && i < bands.length - 1) this.problem(`${path}.upToMiles`, 'is required on every band but the last');
      const previous = bands[i - 1]?.upToMiles;
      if (band.upToMiles !== undefined && previous !== undefined && band.upToMiles <= previous) {
        this.problem(`${path}.upToMiles`, `must be greater than the band before it (${previous})`);
      }
    });
  }

  /** Expands "@list" references and checks ranges, then compiles the patterns. */
  private zips(patterns: string[], path: string): ZipMatcher {
    const expanded: string[] = [];
    patterns.forEach((pattern, index) => {
      if (pattern.startsWith('@')) {
        const list = this.card.zipLists?.[pattern.slice(1)];
        if (!list) this.problem(`${path}[${index}]`, `names the ZIP list ${pattern.slice(1)}, which zipLists does not have`);
        else expanded.push(...list.filter((p) => !p.startsWith('@')));
        return;
      }
      const wrong = rangeProblem(pattern);
      if (wrong) this.problem(`${path}[${index}]`, wrong);
      expanded.push(pattern);
    });
    return compileZipPatterns(expanded);
  }

  private zoneRule(rule: { origins?: string[]; destinations?: string[]; states?: string[]; zone: number }, path: string): CompiledZoneRule {
    if (!rule.destinations && !rule.states) this.problem(path, 'must name destinations or states');
    return {
      rule: path,
      origins: rule.origins && this.zips(rule.origins, `${path}.origins`),
      destinations: rule.destinations && this.zips(rule.destinations, `${path}.destinations`),
      states: rule.states && new Set(rule.states),
      zone: rule.zone,
    };
  }

  private condition(condition: Condition, path: string): CompiledCondition {
    const tests: CompiledCondition[] = [];
    const greater = (value: string | number | undefined, read: (facts: ParcelFacts) => number) => {
      if (value === undefined) return;
      const limit = scaled(value);
      tests.push((facts) => read(facts) > limit);
    };
    greater(condition.actualWeightGt, (f) => f.actualWeight);
    greater(condition.longestGt, (f) => f.sides[0]);
    greater(condition.secondGt, (f) => f.sides[1]);
    greater(condition.lengthGirthGt, (f) => f.lengthPlusGirth);
    if (condition.cubicInGt !== undefined) {
      const limit = BigInt(scaled(condition.cubicInGt)) * CUBIC_SCALE_UP;
      tests.push((f) => f.cubicSize > limit);
    }
    if (condition.zoneIn) {
      const zones = new Set(condition.zoneIn);
      tests.push((f) => zones.has(f.zone));
    }
    if (condition.destIn) {
      const matcher = this.zips(condition.destIn, `${path}.destIn`);
      tests.push((f) => matcher.matches(f.destZip));
    }
    if (condition.residential !== undefined) {
      const wanted = condition.residential;
      tests.push((f) => f.residential === wanted);
    }
    if (condition.all) {
      const all = condition.all.map((c, i) => this.condition(c, `${path}.all[${i}]`));
      tests.push((f) => all.every((test) => test(f)));
    }
    if (condition.any) {
      const any = condition.any.map((c, i) => this.condition(c, `${path}.any[${i}]`));
      tests.push((f) => any.some((test) => test(f)));
    }
    if (condition.not) {
      const not = this.condition(condition.not, `${path}.not`);
      tests.push((f) => !not(f));
    }
    return (facts) => tests.every((test) => test(facts));
  }

  private rounding(rounding: { increment: string | number; mode: RoundingMode } | undefined): Rounding | undefined {
    return rounding && { increment: scaled(rounding.increment), mode: rounding.mode };
  }

  private service(service: RateCard['services'][number], path: string): CompiledService {
    const { rates } = service;
    const columns = rates.zones.length;
    rates.zones.forEach((zone, i) => {
      if (rates.zones.indexOf(zone) !== i) this.problem(`${path}.rates.zones[${i}]`, `zone ${zone} is listed twice`);
    });
    const breaks = rates.breaks.map((row, i) => {
      const upTo = scaled(row.upTo);
      const previous = rates.breaks[i - 1];
      if (previous && !(upTo > scaled(previous.upTo))) {
        this.problem(`${path}.rates.breaks[${i}].upTo`, `must be greater than the break before it (${previous.upTo})`);
      }
      if (row.prices.length !== columns) {
        this.problem(`${path}.rates.breaks[${i}].prices`, `has ${row.prices.length} prices; ${path}.rates.zones names ${columns} zones`);
      }
      return { upTo, prices: row.prices.map(money) };
    });
    if (service.dimWeight && !service.rounding?.weight) {
      this.problem(`${path}.rounding.weight`, 'is required with dimWeight: a dimensional weight is a quotient that must be rounded');
    }
    const beyond = rates.beyondLastBreak?.perUnit;
    if (beyond && beyond.length !== columns) {
      this.problem(`${path}.rates.beyondLastBreak.perUnit`, `has ${beyond.length} prices; ${path}.rates.zones names ${columns} zones`);
    }
    return {
      name: service.name,
      rule: path,
      maxWeight: optionalScaled(service.limits?.maxWeight),
      maxLength: optionalScaled(service.limits?.maxLength),
      maxLengthPlusGirth: optionalScaled(service.limits?.maxLengthPlusGirth),
      dimDivisor: optionalScaled(service.dimWeight?.divisor),
      dimMinCubicSize:
        service.dimWeight?.minCubicSize === undefined ? undefined : BigInt(scaled(service.dimWeight.minCubicSize)) * CUBIC_SCALE_UP,
      sideRounding: this.rounding(service.rounding?.sides),
      weightRounding: this.rounding(service.rounding?.weight),
      zones: rates.zones,
      breaks,
      beyondPerUnit: beyond?.map(money),
      minimumCharge: optionalMoney(service.minimumCharge),
      serviceArea: service.serviceArea && this.condition(service.serviceArea, `${path}.serviceArea`),
    };
  }

  private surcharge(surcharge: NonNullable<RateCard['surcharges']>[number], path: string): CompiledSurcharge {
    if ((surcharge.amount === undefined) === (surcharge.amountByZone === undefined)) {
      this.problem(path, 'must have either amount or amountByZone');
    }
    surcharge.services?.forEach((name, i) => {
      if (!this.serviceNames.has(name)) this.problem(`${path}.services[${i}]`, `names the service ${name}, which the card does not have`);
    });
    surcharge.suppresses?.forEach((name, i) => {
      if (!this.surchargeNames.has(name))
        this.problem(`${path}.suppresses[${i}]`, `names the surcharge ${name}, which the card does not have`);
    });
    if (surcharge.window) this.checkWindow(surcharge.window, `${path}.window`);
    const flat = optionalMoney(surcharge.amount);
    const byZone = new Map(Object.entries(surcharge.amountByZone ?? {}).map(([zone, amount]) => [Number(zone), money(amount)]));
    return {
      name: surcharge.name,
      rule: path,
      applies: surcharge.when ? this.condition(surcharge.when, `${path}.when`) : () => true,
      amountIn: (zone) => {
        if (flat !== undefined) return { amount: flat, rule: `${path}.amount` };
        const amount = byZone.get(zone);
        return amount === undefined ? undefined : { amount, rule: `${path}.amountByZone.${zone}` };
      },
      services: surcharge.services && new Set(surcharge.services),
      group: surcharge.group,
      suppresses: new Set(surcharge.suppresses ?? []),
      minBillableWeight: optionalScaled(surcharge.minBillableWeight),
      window: surcharge.window,
    };
  }

  private fuel(fuel: NonNullable<RateCard['fuel']>) {
    fuel.appliesTo.forEach((name, i) => {
      if (name !== BASE_CHARGE && !this.surchargeNames.has(name)) {
        this.problem(`fuel.appliesTo[${i}]`, `names ${name}, which is neither ${BASE_CHARGE} nor a surcharge of the card`);
      }
    });
    return { percent: scaled(fuel.percent), appliesTo: new Set(fuel.appliesTo) };
  }
}
