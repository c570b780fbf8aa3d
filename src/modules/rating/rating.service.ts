import { LRUCache } from 'lru-cache';
import { DateTime } from 'luxon';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import type { Db } from '../../db/database.js';
import { inTransaction } from '../../db/transaction.js';
import type { Principal } from '../../http/auth.js';
import { forbidden, invalid, notFound } from '../../lib/refusal.js';
import type { Clock } from '../../lib/clock.js';
import { sha256Hex } from '../../lib/ids.js';
import { andThen, type MaybePromise } from '../../lib/maybe-promise.js';
import * as tenants from '../tenants/tenants.service.js';
import { quoteParcel, type Quotation } from './engine.js';
import { compileRateCard, RateCardError, type CompiledCard } from './rate-card.compile.js';
import { failureEnvelope, presentExplanation, presentQuotation, type CardInForce } from './rating.present.js';
import * as repo from './rating.repository.js';
import type { RateRequest, RateResponse } from './rating.schemas.js';

/**
 * Rate cards (loaded, versioned, chosen) and quotes: the only part of the rate engine that touches
 * the database. A card bound to a UserID wins over the company's default; of a binding's versions,
 * the newest whose effective days include today is in force.
 */

/** user_id of a company's default card. */
const DEFAULT_CARD = 0;
/** How long a process may price with the card it last chose (docs/access.md: about a second). */
const CHOICE_TTL_MS = 1000;
/**
 * How much card text the compiled cards kept stand for, at most: a card may be megabytes and a
 * company may load many versions, so the memory is bounded by their size, not their number. A
 * compiled card is counted by its stored text (its tables grow with it).
 */
export const KEPT_CARD_TEXT = 64 * 1024 * 1024;

export interface RateCardView {
  id: number;
  company: string;
  userId: number | null;
  version: number;
  name: string;
  effectiveFrom: string;
  effectiveTo: string | null;
  timeZone: string;
  loadedAt: string;
  inForce: boolean;
}

function viewOf(row: repo.RateCardVersion, inForce: boolean): RateCardView {
  return {
    id: Number(row.id),
    company: row.company_id,
    userId: row.user_id === DEFAULT_CARD ? null : Number(row.user_id),
    version: row.version,
    name: row.name,
    effectiveFrom: row.effective_from,
    effectiveTo: row.effective_to,
    timeZone: row.time_zone,
    loadedAt: new Date(Number(row.loaded_at)).toISOString(),
    inForce,
  };
}

async function requireCompany(db: Db, companyId: string): Promise<void> {
  if (!(await tenants.companyExists(db, companyId))) throw notFound(`Company ${companyId} not found`);
}

/** Reads a card file's text: YAML 1.2, of which JSON is a part. */
export function parseRateCardText(text: string): unknown {
  try {
    return parseYaml(text, { prettyErrors: true, uniqueKeys: true });
  } catch (error) {
    if (error instanceof YAMLParseError) {
      const [line, column] = error.linePos?.[0] ? [error.linePos[0].line, error.linePos[0].col] : [];
      throw new RateCardError([
        `the file is not valid JSON or YAML${line ? ` (line ${line}, column ${column})` : ''}: ${error.message.split('\n')[0]}`,
      ]);
    }
    throw error;
  }
}

export interface RateCardLoad {
  companyId: string;
  /** Bind the card to one UserID instead of making it the company's default. */
  userId?: number;
  text: string;
  keyId?: number | null;
}

/**
 * Checks a card and stores it as the binding's next version. A card with a mistake is refused
 * (RateCardError, every problem with its path) and the card in force stays. Loading the same card
 * as the binding's latest version again changes nothing.
 */
export async function loadRateCard(db: Db, clock: Clock, load: RateCardLoad): Promise<{ card: RateCardView; changed: boolean }> {
  if (load.userId !== undefined && !(Number.isSafeInteger(load.userId) && load.userId > 0)) {
    throw invalid('--user-id must be a positive integer');
  }
  const content = parseRateCardText(load.text);
  const compiled = compileRateCard(content);
  await requireCompany(db, load.companyId);
  const canonical = JSON.stringify(content);
  const hash = sha256Hex(canonical);
  const userId = load.userId ?? DEFAULT_CARD;
  return inTransaction(db, async (trx) => {
    const latest = await repo.latestVersion(trx, load.companyId, userId);
    // The binding's latest version is in force whenever its days include today.
    if (latest && latest.card_hash === hash) return { card: viewOf(latest, covers(latest, clock.now())), changed: false };
    const row = {
      company_id: load.companyId,
      user_id: userId,
      version: (latest?.version ?? 0) + 1,
      name: compiled.name,
      effective_from: compiled.effective.from,
      effective_to: compiled.effective.to ?? null,
      time_zone: compiled.timeZone,
      card: canonical,
      card_hash: hash,
      loaded_by_key_id: load.keyId ?? null,
      loaded_at: clock.now(),
    };
    await repo.insertCard(trx, row);
    const stored = (await repo.latestVersion(trx, load.companyId, userId))!;
    return { card: viewOf(stored, covers(stored, clock.now())), changed: true };
  });
}

/** The day a card's dates are read in: today in the card's zone. */
const dayIn = (timeZone: string, now: number) => DateTime.fromMillis(now, { zone: timeZone }).toISODate()!;

const covers = (version: repo.RateCardVersion, now: number) => {
  const day = dayIn(version.time_zone, now);
  return day >= version.effective_from && (version.effective_to === null || day <= version.effective_to);
};

/** Of versions newest first, the UserID's card in force, else the company default's. */
function chooseInForce(versions: repo.RateCardVersion[], userId: number, now: number): repo.RateCardVersion | undefined {
  return (
    versions.find((v) => Number(v.user_id) === userId && userId !== DEFAULT_CARD && covers(v, now)) ??
    versions.find((v) => Number(v.user_id) === DEFAULT_CARD && covers(v, now))
  );
}

/** A company's cards, every version, each marked when it is the one its binding has in force today. */
export async function listRateCards(db: Db, clock: Clock, companyId: string): Promise<RateCardView[]> {
  await requireCompany(db, companyId);
  const versions = await repo.listVersions(db, companyId);
  const now = clock.now();
  const inForce = new Set<number>();
  for (const userId of new Set(versions.map((v) => Number(v.user_id)))) {
    const chosen = versions.find((v) => Number(v.user_id) === userId && covers(v, now));
    if (chosen) inForce.add(Number(chosen.id));
  }
  return versions.map((v) => viewOf(v, inForce.has(Number(v.id))));
}

/** One version of a binding's card (null: the company default), with its content; undefined when there is none. */
export async function findRateCard(
  db: Db,
  clock: Clock,
  companyId: string,
  userId: number | null,
  version: number,
): Promise<{ view: RateCardView; card: Record<string, unknown> } | undefined> {
  const view = (await listRateCards(db, clock, companyId)).find((card) => card.userId === userId && card.version === version);
  if (!view) return undefined;
  const row = (await repo.findCard(db, companyId, view.id))!;
  return { view, card: JSON.parse(row.card) as Record<string, unknown> };
}

/** A 403 unless the key may quote for the request's UserID. */
export function assertMayQuote(principal: Principal, userId: unknown): void {
  if (principal.role === 'admin') return;
  if (principal.role !== 'rater') throw forbidden(`An API key with role ${principal.role} may not ask for rates`);
  if (typeof userId !== 'number' || !principal.userIds.includes(userId)) {
    throw forbidden(`UserID ${String(userId)} is not one this API key may quote for`);
  }
}

interface Choice {
  card: CompiledCard;
  /** Today in the card's zone when the choice was made: remembered with it, for at most a second. */
  inForce: CardInForce;
}

/** Quotes answer at once when the card's choice is remembered, and after reading it otherwise. */
export interface Rater {
  quote(principal: Principal, request: RateRequest): MaybePromise<RateResponse>;
  explain(principal: Principal, request: RateRequest): MaybePromise<RateResponse & { Explanation: unknown }>;
}

/**
 * Quotes with the card in force. The choice is remembered for about a second per (company,
 * UserID) and compiled cards per version, so that a quote costs no database read in the common
 * case while a newly loaded card is in force on every process within that second.
 */
export function createRater(db: Db, clock: Clock, keptCardText = KEPT_CARD_TEXT): Rater {
  const perf = { now: () => clock.now() };
  const choices = new LRUCache<string, { choice: Choice | null }>({ max: 10_000, ttl: CHOICE_TTL_MS, ttlResolution: 0, perf });
  const compiled = new LRUCache<string, CompiledCard>({ max: 1000, maxSize: keptCardText });

  async function compiledCard(companyId: string, id: number): Promise<CompiledCard> {
    const key = `${companyId}\u0000${id}`;
    const cached = compiled.get(key);
    if (cached) return cached;
    const row = (await repo.findCard(db, companyId, id))!;
    const card = compileRateCard(JSON.parse(row.card));
    // A card larger than all that may be kept is compiled for each choice (once a second), not kept.
    compiled.set(key, card, { size: Math.max(1, row.card.length) });
    return card;
  }

  async function chooseAndRemember(key: string, companyId: string, userId: number): Promise<Choice | null> {
    const now = clock.now();
    const version = chooseInForce(await repo.findVersions(db, companyId, [DEFAULT_CARD, userId]), userId, now);
    let choice: Choice | null = null;
    if (version) {
      const card = await compiledCard(companyId, Number(version.id));
      const markupPercent = card.markupByUserId.get(userId) ?? card.markupPercent;
      const date = dayIn(card.timeZone, now);
      choice = { card, inForce: { version: version.version, userId: Number(version.user_id), date, markupPercent } };
    }
    choices.set(key, { choice });
    return choice;
  }

  function choose(companyId: string, userId: number): MaybePromise<Choice | null> {
    const key = `${companyId}\u0000${userId}`;
    const remembered = choices.get(key);
    return remembered ? remembered.choice : chooseAndRemember(key, companyId, userId);
  }

  function price(principal: Principal, request: RateRequest): MaybePromise<{ choice: Choice; quotation: Quotation } | RateResponse> {
    assertMayQuote(principal, request.UserID);
    return andThen(choose(principal.companyId, request.UserID), (choice) => {
      if (!choice) return failureEnvelope('notServiceable', `no rate card is in force for UserID ${request.UserID}`);
      const { Data } = request;
      const quotation = quoteParcel(
        choice.card,
        {
          originZip: Data.OriginZip.slice(0, 5),
          destZip: Data.DestZip.slice(0, 5),
          length: String(Data.Length),
          width: String(Data.Width),
          height: String(Data.Hight),
          weight: String(Data.Weight),
        },
        { date: choice.inForce.date, userId: request.UserID },
      );
      return { choice, quotation };
    });
  }

  return {
    quote: (principal, request) =>
      andThen(price(principal, request), (priced) =>
        'quotation' in priced ? presentQuotation(priced.choice.card, priced.quotation) : priced,
      ),
    explain: (principal, request) =>
      andThen(price(principal, request), (priced) => {
        if (!('quotation' in priced)) return { ...priced, Explanation: null };
        const { card, inForce } = priced.choice;
        return {
          ...presentQuotation(card, priced.quotation),
          Explanation: presentExplanation(card, inForce, priced.quotation),
        };
      }),
  };
}
