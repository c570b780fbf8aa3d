import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { DateTime } from 'luxon';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_RATE_CARD } from '../../src/demo.js';
import { RateCardError } from '../../src/modules/rating/rate-card.compile.js';
import { listRateCards, loadRateCard } from '../../src/modules/rating/rating.service.js';
import * as tenants from '../../src/modules/tenants/tenants.service.js';
import { useTestApp, type TestContext } from '../helpers/app.js';
import { describeEachDialect } from '../helpers/dialects.js';
import { createKey, createTenant, type Tenant } from '../helpers/factories.js';

/**
 * The last-mile rate engine over HTTP (docs/rating.md): the envelope of every outcome, the input rules,
 * the keys that may ask, and which card prices a quote.
 */

const RATE = '/api/RateEngine/SVC/lastmile';
const EXPLAIN = `${RATE}/explain`;

const EXAMPLE_TEXT = readFileSync(EXAMPLE_RATE_CARD, 'utf8');
type CardJson = Record<string, any>;
const exampleCard = (): CardJson => JSON.parse(EXAMPLE_TEXT) as CardJson;
/** The example card's text after `edit` changed its parsed JSON. */
const variant = (edit: (card: CardJson) => void) => {
  const card = exampleCard();
  edit(card);
  return JSON.stringify(card);
};
/** The example card with every line marked up 10 %: prices that differ from the example's. */
const MARKED_UP = variant((card) => {
  card.name = 'Marked up';
  card.markup = { percent: '10' };
});

/** Los Angeles to New York, 12 × 10 × 8 in, 5.2 lb: the demo's parcel. */
const PARCEL = { OriginZip: '90001', DestZip: '10001', Length: '12', Width: '10', Hight: '8', Weight: '5.2' };
const ask = (UserID: unknown, data: Record<string, unknown> = {}) => ({ UserID, Data: { ...PARCEL, ...data } });

/*
 * The example card's quote for PARCEL. 90001 → 10001 is 2,449 great-circle miles between the ZIP3
 * centroids, beyond the last banded 1,800: zone 8. The date (2026-03-05) is outside the peak window.
 *
 * Ground: sides rounded half-up to 12, 10, 8; actual 5.2 lb rounded up to 6; dimensional
 *   12 × 10 × 8 / 139 = 960 / 139 = 6.906… rounded up to 7; billable max(6, 7) = 7.
 *   Base: break "up to 7", zone 8 = 26.00 (above the 10.35 minimum).
 *   Residential (assumeResidential): 5.85. No DAS list holds 10001; no handling (longest 12 ≤ 48,
 *   second 10 ≤ 30, length + girth 12 + 2 × (10 + 8) = 48 ≤ 105); no large package.
 *   Fuel 19.75 % of Base + Residential = 31.85 × 0.1975 = 6.290375 → 6.29.
 *   Total 26.00 + 5.85 + 6.29 = 38.14.
 * Economy: cubic size 960 ≤ 1728, so no dimensional weight; billable 6.
 *   Base: break "up to 6", zone 8 = 22.90. Residential is Ground's only.
 *   Fuel 22.90 × 0.1975 = 4.52275 → 4.52. Total 22.90 + 4.52 = 27.42.
 * Cheapest first: Economy, Ground.
 */
const EXAMPLE_QUOTE = [
  { name: 'Economy', Price: '27.4200' },
  { name: 'Ground', Price: '38.1400' },
];
/*
 * The same with a 10 % markup on every line, each rounded half-up to cents:
 * Economy 22.90 × 1.1 = 25.19; 4.52275 × 1.1 = 4.975025 → 4.98; 30.17.
 * Ground 26.00 × 1.1 = 28.60; 5.85 × 1.1 = 6.435 → 6.44; 6.290375 × 1.1 = 6.9194125 → 6.92; 41.96.
 */
const MARKED_UP_QUOTE = [
  { name: 'Economy', Price: '30.1700' },
  { name: 'Ground', Price: '41.9600' },
];

const envelope = (severity: number, source: string, message: string) => ({
  Result: [],
  Page: null,
  ErrorMsg: message,
  ErrorSeverity: severity,
  ErrorSource: source,
  Status: false,
});
const quoted = (Result: { name: string; Price: string }[]) => ({
  Result,
  Page: null,
  ErrorMsg: '',
  ErrorSeverity: 0,
  ErrorSource: '',
  Status: true,
});
const badInput = (...messages: string[]) => envelope(2, 'RateEngine.Validation', messages.join('; '));
const notServiceable = (message: string) => envelope(3, 'RateEngine.Service', message);
const notAuthorized = (message: string) => envelope(4, 'RateEngine.Auth', message);

const MISSING = 'Missing Authorization header; send Authorization: APIKey <key>';
const MALFORMED = 'Authorization header must be APIKey <key>';
const UNKNOWN = 'Unknown or revoked API key';
const ZIP_RULE = 'must be a 5-digit ZIP code or a ZIP+4, as text (e.g. "02134" or "02134-1234")';
const SIZE_RULE = 'must be a positive decimal number such as "12.5" (at most 6 integer and 4 fractional digits, no exponent)';
const noCard = (userId: number) => `no rate card is in force for UserID ${userId}`;

interface PostOptions {
  key?: string;
  path?: string;
  headers?: Record<string, string>;
}

/** POSTs to the rate engine: an object is sent as JSON, a string as it is. */
function poster(ctx: () => TestContext) {
  return (body: unknown, { key, path = RATE, headers = {} }: PostOptions = {}) =>
    ctx().app.inject({
      method: 'POST',
      url: path,
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `APIKey ${key}` } : {}), ...headers },
      payload: typeof body === 'string' ? body : JSON.stringify(body),
    });
}

describeEachDialect('rate engine: quotes, input and keys', (dialect) => {
  const ctx = useTestApp(dialect);
  const post = poster(ctx);
  let tenant: Tenant;
  let rater: string;
  let admin: string;
  let other: Tenant;
  let otherAdmin: string;

  beforeAll(async () => {
    const { database, clock } = ctx();
    tenant = await createTenant(database.db, clock);
    await loadRateCard(database.db, clock, { companyId: tenant.companyId, text: EXAMPLE_TEXT });
    rater = await createKey(database.db, clock, tenant, 'rater', { userIds: [1001] });
    admin = await createKey(database.db, clock, tenant, 'admin');
    other = await createTenant(database.db, clock);
    await loadRateCard(database.db, clock, { companyId: other.companyId, text: MARKED_UP });
    otherAdmin = await createKey(database.db, clock, other, 'admin');
  });

  describe('quoted', () => {
    it('quotes the example card for a rater key and its UserID, cheapest first, in the exact wire form', async () => {
      const res = await post(ask(1001), { key: rater });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.json()).toEqual(quoted(EXAMPLE_QUOTE));
      expect(res.body).toBe(
        '{"Result":[{"name":"Economy","Price":"27.4200"},{"name":"Ground","Price":"38.1400"}],' +
          '"Page":null,"ErrorMsg":"","ErrorSeverity":0,"ErrorSource":"","Status":true}',
      );
    });

    it('quotes for an admin key and any positive UserID of its company, with the company default card', async () => {
      for (const userId of [1, 1001, 424242, 999_999_999_999_999]) {
        const res = await post(ask(userId), { key: admin });
        expect({ userId, status: res.statusCode, body: res.json() }).toEqual({ userId, status: 200, body: quoted(EXAMPLE_QUOTE) });
      }
    });

    it('tolerates JSON numbers for the sizes, exponent forms included once JSON.parse has read them', async () => {
      const numbers = await post(ask(1001, { Length: 12, Width: 10, Hight: 8, Weight: 5.2 }), { key: rater });
      expect(numbers.statusCode).toBe(200);
      expect(numbers.json()).toEqual(quoted(EXAMPLE_QUOTE));

      // `1.2e1` in the JSON text is the number 12 by the time the schema sees it, whose plain form
      // "12" is allowed: the schema cannot tell how the sender spelled a number (an exponent is
      // refused only in text, "1e3", and where String(n) has one, 1e-7).
      const exponent = await post(
        '{"UserID":1001,"Data":{"OriginZip":"90001","DestZip":"10001","Length":1.2e1,"Width":10,"Hight":"8","Weight":5.2}}',
        { key: rater },
      );
      expect(exponent.statusCode).toBe(200);
      expect(exponent.json()).toEqual(quoted(EXAMPLE_QUOTE));

      // 1e3 is read as 1000 lb: over every service's weight limit.
      const heavy = await post(
        '{"UserID":1001,"Data":{"OriginZip":"90001","DestZip":"10001","Length":"12","Width":"10","Hight":"8","Weight":1e3}}',
        {
          key: rater,
        },
      );
      expect(heavy.statusCode).toBe(200);
      expect(heavy.json()).toEqual(
        notServiceable('Ground: the weight 1000 lb is over the limit of 150 lb; Economy: the weight 1000 lb is over the limit of 70 lb'),
      );
    });

    it('accepts ZIP+4 with and without the hyphen and prices by the first five digits', async () => {
      for (const zips of [
        { OriginZip: '90001-1234', DestZip: '10001-6789' },
        { OriginZip: '900011234', DestZip: '100016789' },
      ]) {
        const res = await post(ask(1001, zips), { key: rater });
        expect({ zips, status: res.statusCode, body: res.json() }).toEqual({ zips, status: 200, body: quoted(EXAMPLE_QUOTE) });
      }
    });

    it('keeps leading zeros: 00601 (Puerto Rico) takes the card override for 006-009, zone 9', async () => {
      /*
       * Zone 9 by zones.overrides[0]. Economy may not deliver to @remote (00601-00988 is in it).
       * Ground: billable 7 (as above); break "up to 7", zone 9 = 67.90; Residential 5.85; Remote
       * Area 15.50 (the only one of its group); fuel 19.75 % of 67.90 + 5.85 + 15.50 = 89.25 →
       * 17.626875 → 17.63. Total 67.90 + 5.85 + 15.50 + 17.63 = 106.88.
       */
      const res = await post(ask(1001, { DestZip: '00601' }), { key: rater, path: EXPLAIN });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect({ ...body, Explanation: undefined }).toEqual({ ...quoted([{ name: 'Ground', Price: '106.8800' }]), Explanation: undefined });
      expect(body.Explanation.Zone).toEqual({ Zone: 9, Source: 'override', Rule: 'zones.overrides[0]', Miles: null });
      expect(body.Explanation.Services[1]).toEqual({
        Service: 'Economy',
        Quoted: false,
        Reason: '00601 in zone 9 is outside its service area',
      });

      // 02134 (Boston) is read as ZIP3 021: 186 miles from ZIP3 100, in the band up to 300.
      const boston = await post(ask(1001, { OriginZip: '02134' }), { key: rater, path: EXPLAIN });
      expect(boston.statusCode).toBe(200);
      expect(boston.json().Explanation.Zone).toEqual({ Zone: 3, Source: 'distance', Rule: 'zones.distanceBands[1]', Miles: 186 });
      /*
       * Zone 3. Ground: base "up to 7", zone 3 = 15.53; Residential 5.85; fuel 21.38 × 0.1975 =
       * 4.22255 → 4.22; total 25.60. Economy: base "up to 6", zone 3 = 13.80; fuel 2.7255 → 2.73;
       * total 16.53.
       */
      expect(boston.json().Result).toEqual([
        { name: 'Economy', Price: '16.5300' },
        { name: 'Ground', Price: '25.6000' },
      ]);
    });
  });

  describe('bad input: 400, severity 2, RateEngine.Validation, every problem named', () => {
    const cases: [string, unknown, string[]][] = [
      ['an empty object', {}, ['UserID is required', 'Data is required']],
      ['no UserID', { Data: PARCEL }, ['UserID is required']],
      ['no Data', { UserID: 1001 }, ['Data is required']],
      [
        'an empty Data',
        { UserID: 1001, Data: {} },
        [
          'Data.OriginZip is required',
          'Data.DestZip is required',
          'Data.Length is required',
          'Data.Width is required',
          'Data.Hight is required',
          'Data.Weight is required',
        ],
      ],
      ...(['OriginZip', 'DestZip', 'Length', 'Width', 'Hight', 'Weight'] as const).map((field): [string, unknown, string[]] => {
        const { [field]: _dropped, ...rest } = PARCEL;
        return [`no Data.${field}`, { UserID: 1001, Data: rest }, [`Data.${field} is required`]];
      }),
      ['UserID 0', ask(0), ['UserID must be at least 1']],
      ['UserID -1', ask(-1), ['UserID must be at least 1']],
      ['UserID 1.5', ask(1.5), ['UserID must be an integer']],
      ['UserID as text', ask('1001'), ['UserID must be an integer']],
      ['UserID null', ask(null), ['UserID must be an integer']],
      ['UserID beyond 15 digits', ask(1_000_000_000_000_000), ['UserID must be at most 999999999999999']],
      ['a ZIP as a number', ask(1001, { OriginZip: 90001 }), ['Data.OriginZip must be a string']],
      ['a ZIP of 4 digits', ask(1001, { DestZip: '1000' }), [`Data.DestZip ${ZIP_RULE}`]],
      ['a ZIP with letters', ask(1001, { DestZip: '1000A' }), [`Data.DestZip ${ZIP_RULE}`]],
      ['a ZIP+4 of 3 digits', ask(1001, { OriginZip: '12345-678' }), [`Data.OriginZip ${ZIP_RULE}`]],
      ['a ZIP with blanks', ask(1001, { OriginZip: ' 90001' }), [`Data.OriginZip ${ZIP_RULE}`]],
      ['a ZIP of 6 digits', ask(1001, { OriginZip: '900011' }), [`Data.OriginZip ${ZIP_RULE}`]],
      ['size "0"', ask(1001, { Length: '0' }), [`Data.Length ${SIZE_RULE}`]],
      ['size "0.0000"', ask(1001, { Length: '0.0000' }), [`Data.Length ${SIZE_RULE}`]],
      ['size 0 as a number', ask(1001, { Width: 0 }), [`Data.Width ${SIZE_RULE}`]],
      ['size "-1"', ask(1001, { Hight: '-1' }), [`Data.Hight ${SIZE_RULE}`]],
      ['size -1 as a number', ask(1001, { Weight: -1 }), [`Data.Weight ${SIZE_RULE}`]],
      ['size "1e3"', ask(1001, { Weight: '1e3' }), [`Data.Weight ${SIZE_RULE}`]],
      ['size "NaN"', ask(1001, { Weight: 'NaN' }), [`Data.Weight ${SIZE_RULE}`]],
      ['size "Infinity"', ask(1001, { Weight: 'Infinity' }), [`Data.Weight ${SIZE_RULE}`]],
      ['size ""', ask(1001, { Length: '' }), [`Data.Length ${SIZE_RULE}`]],
      ['size "12.34567"', ask(1001, { Length: '12.34567' }), [`Data.Length ${SIZE_RULE}`]],
      ['size 12.34567 as a number', ask(1001, { Length: 12.34567 }), [`Data.Length ${SIZE_RULE}`]],
      ['size 1e-7 as a number (String gives "1e-7")', ask(1001, { Length: 1e-7 }), [`Data.Length ${SIZE_RULE}`]],
      ['size of 7 integer digits', ask(1001, { Length: '1234567' }), [`Data.Length ${SIZE_RULE}`]],
      ['size " 12"', ask(1001, { Length: ' 12' }), [`Data.Length ${SIZE_RULE}`]],
      ['size "+12"', ask(1001, { Length: '+12' }), [`Data.Length ${SIZE_RULE}`]],
      ['size "12."', ask(1001, { Length: '12.' }), [`Data.Length ${SIZE_RULE}`]],
      // A wrong type is named twice: once for the type, once for the decimal rule.
      ['size null', ask(1001, { Length: null }), ['Data.Length must be a string or a number', `Data.Length ${SIZE_RULE}`]],
      ['size true', ask(1001, { Weight: true }), ['Data.Weight must be a string or a number', `Data.Weight ${SIZE_RULE}`]],
      [
        'every field wrong at once',
        { UserID: 0, Data: { OriginZip: '9000', DestZip: 10001, Length: '0', Width: '-1', Hight: '1e3', Weight: 'NaN' } },
        [
          'UserID must be at least 1',
          `Data.OriginZip ${ZIP_RULE}`,
          'Data.DestZip must be a string',
          `Data.Length ${SIZE_RULE}`,
          `Data.Width ${SIZE_RULE}`,
          `Data.Hight ${SIZE_RULE}`,
          `Data.Weight ${SIZE_RULE}`,
        ],
      ],
      ['Data not an object', { UserID: 1001, Data: 'parcel' }, ['Data must be an object']],
      ['a JSON array body', [ask(1001)], ['Request body must be an object']],
      ['a JSON null body', 'null', ['Request body must be an object']],
      ['malformed JSON', '{"UserID":1001,"Data":', ['Malformed JSON body']],
      ['an empty body', '', ['Request body is empty']],
    ];

    it.each(cases)('%s', async (_name, body, messages) => {
      const res = await post(body, { key: rater });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual(badInput(...messages));
    });

    it('answers the explain route the same envelope, with no Explanation', async () => {
      const res = await post(ask(0, { Length: '0' }), { key: rater, path: EXPLAIN });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual(badInput('UserID must be at least 1', `Data.Length ${SIZE_RULE}`));
    });

    it('415s a body that is not application/json, in the rate envelope', async () => {
      const text = await post('UserID=1001', { key: rater, headers: { 'content-type': 'text/plain' } });
      expect(text.statusCode).toBe(415);
      expect(text.json()).toEqual(badInput('Content-Type must be application/json'));
      const form = await post('UserID=1001', { key: rater, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expect(form.statusCode).toBe(415);
      expect(form.json()).toEqual(badInput('Content-Type must be application/json'));
    });
  });

  describe('routes', () => {
    it('answers an unknown route with 404 and a wrong method with 405 and Allow, in the rate envelope, after the key check', async () => {
      const nothing = await post(ask(1001), { key: rater, path: '/api/RateEngine/SVC/nothing' });
      expect(nothing.statusCode).toBe(404);
      expect(nothing.json()).toEqual(badInput('Route POST /api/RateEngine/SVC/nothing not found'));
      const get = await ctx().app.inject({ method: 'GET', url: `${RATE}?x=1`, headers: { authorization: `APIKey ${rater}` } });
      expect(get.statusCode).toBe(405);
      expect(get.headers.allow).toBe('POST');
      expect(get.json()).toEqual(badInput('Method GET is not allowed on /api/RateEngine/SVC/lastmile; it takes POST'));
      const keyless = await post(ask(1001), { path: '/api/RateEngine/SVC/nothing' });
      expect(keyless.statusCode).toBe(401);
      expect(keyless.json()).toEqual(notAuthorized(MISSING));
    });
  });

  describe('keys: 401 / 403, severity 4, RateEngine.Auth', () => {
    it('401s a request without an Authorization header', async () => {
      const res = await post(ask(1001));
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual(notAuthorized(MISSING));
    });

    it.each([
      ['another scheme', 'Bearer x'],
      ['the scheme with no key', 'APIKey'],
      ['two words after the scheme', 'APIKey abc def'],
      ['a bare key without the scheme', 'wk_abcdef'],
    ])('401s a malformed Authorization header: %s', async (_name, authorization) => {
      const res = await post(ask(1001), { headers: { authorization } });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual(notAuthorized(MALFORMED));
    });

    it('401s an unknown key without echoing it', async () => {
      const res = await post(ask(1001), { key: 'wk_this-key-does-not-exist' });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual(notAuthorized(UNKNOWN));
      expect(res.body).not.toContain('wk_this-key-does-not-exist');
    });

    it('401s a revoked key once the second the rate routes may trust a key lookup has passed', async () => {
      const { database, clock } = ctx();
      const { key, view } = await tenants.createApiKey(database.db, clock, {
        role: 'rater',
        companyId: tenant.companyId,
        customerIds: [],
        facilityIds: [],
        userIds: [1001],
        label: 'to be revoked',
      });
      expect((await post(ask(1001), { key })).json()).toEqual(quoted(EXAMPLE_QUOTE));
      await tenants.revokeApiKey(database.db, clock, view.id);
      // Within the second (the test clock has not moved) the remembered lookup may still stand.
      const within = await post(ask(1001), { key });
      expect(within.statusCode).toBe(200);
      expect(within.json()).toEqual(quoted(EXAMPLE_QUOTE));
      clock.advance(1001);
      const after = await post(ask(1001), { key });
      expect(after.statusCode).toBe(401);
      expect(after.json()).toEqual(notAuthorized(UNKNOWN));
      // The other keys still work.
      expect((await post(ask(1001), { key: rater })).statusCode).toBe(200);
    });

    it('403s a rater key asking for a UserID it does not have', async () => {
      for (const userId of [1002, 1, 999_999_999_999_999]) {
        const res = await post(ask(userId), { key: rater });
        expect({ userId, status: res.statusCode, body: res.json() }).toEqual({
          userId,
          status: 403,
          body: notAuthorized(`UserID ${userId} is not one this API key may quote for`),
        });
      }
      const explain = await post(ask(1002), { key: rater, path: EXPLAIN });
      expect(explain.statusCode).toBe(403);
      expect(explain.json()).toEqual(notAuthorized('UserID 1002 is not one this API key may quote for'));
    });

    it('403s customer and operator keys', async () => {
      const { database, clock } = ctx();
      for (const role of ['customer', 'operator'] as const) {
        const key = await createKey(database.db, clock, tenant, role);
        const res = await post(ask(1001), { key });
        expect(res.statusCode).toBe(403);
        expect(res.json()).toEqual(notAuthorized(`An API key with role ${role} may not ask for rates`));
      }
    });

    it("quotes another company's admin key with its own company's card, never the first company's", async () => {
      const res = await post(ask(1001), { key: otherAdmin });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(quoted(MARKED_UP_QUOTE));
      // and the first company still gets its own
      expect((await post(ask(1001), { key: admin })).json()).toEqual(quoted(EXAMPLE_QUOTE));
    });

    it('checks the key, then the body, then the role and UserID', async () => {
      const { database, clock } = ctx();
      const customer = await createKey(database.db, clock, tenant, 'customer');
      const bad = ask(0, { DestZip: '1' });

      const noKey = await post(bad);
      expect(noKey.statusCode).toBe(401);
      expect(noKey.json()).toEqual(notAuthorized(MISSING));
      const noKeyMalformed = await post('{"UserID":', { key: 'wk_unknown' });
      expect(noKeyMalformed.statusCode).toBe(401);
      expect(noKeyMalformed.json()).toEqual(notAuthorized(UNKNOWN));
      const noKeyText = await post('hello', { headers: { 'content-type': 'text/plain' } });
      expect(noKeyText.statusCode).toBe(401);
      expect(noKeyText.json()).toEqual(notAuthorized(MISSING));

      const raterBad = await post(bad, { key: rater });
      expect(raterBad.statusCode).toBe(400);
      expect(raterBad.json()).toEqual(badInput('UserID must be at least 1', `Data.DestZip ${ZIP_RULE}`));
      // a UserID the rater may not use, in a body that is bad otherwise: still the 400
      const raterOtherUserBad = await post(ask(1002, { Weight: '0' }), { key: rater });
      expect(raterOtherUserBad.statusCode).toBe(400);
      expect(raterOtherUserBad.json()).toEqual(badInput(`Data.Weight ${SIZE_RULE}`));

      const customerBad = await post(bad, { key: customer });
      expect(customerBad.statusCode).toBe(400);
      const customerGood = await post(ask(1001), { key: customer });
      expect(customerGood.statusCode).toBe(403);
      expect(customerGood.json()).toEqual(notAuthorized('An API key with role customer may not ask for rates'));
    });
  });

  describe('not serviceable: 200, Status false, severity 3, RateEngine.Service', () => {
    it.each([
      [
        'over the weight limits',
        { Weight: '150.0001' },
        'Ground: the weight 150.0001 lb is over the limit of 150 lb; Economy: the weight 150.0001 lb is over the limit of 70 lb',
      ],
      [
        'over the length limits (the longest side, whichever field it is in)',
        { Length: '10', Width: '109', Hight: '8' },
        'Ground: the longest side 109 in is over the limit of 108 in; Economy: the longest side 109 in is over the limit of 108 in',
      ],
      [
        'over the length + girth limits',
        { Length: '60', Width: '30', Hight: '30' },
        'Ground: length + girth 180 in is over the limit of 165 in; Economy: length + girth 180 in is over the limit of 130 in',
      ],
      [
        'over different limits per service',
        { Length: '60', Width: '30', Hight: '30', Weight: '80' },
        // 80 lb is within Ground's 150, its length + girth 60 + 2 × (30 + 30) = 180 over its 165;
        // Economy checks the weight first, and 80 lb is over its 70.
        'Ground: length + girth 180 in is over the limit of 165 in; Economy: the weight 80 lb is over the limit of 70 lb',
      ],
    ])('%s', async (_name, data, message) => {
      const res = await post(ask(1001, data), { key: rater });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(notServiceable(message));
    });

    it('quotes the services within their limits and leaves out the others', async () => {
      // 71 lb: over Economy's 70, within Ground's 150.
      const res = await post(ask(1001, { Weight: '71' }), { key: rater });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(quoted([{ name: 'Ground', Price: '250.0400' }]));
    });

    it('a ZIP whose ZIP3 nobody knows (000)', async () => {
      const dest = await post(ask(1001, { DestZip: '00012' }), { key: rater });
      expect(dest.statusCode).toBe(200);
      expect(dest.json()).toEqual(
        notServiceable("no zone for 90001 to 00012: ZIP3 000 is in neither the rate card's zone rules nor the ZIP geography"),
      );
      const both = await post(ask(1001, { OriginZip: '00012-3456', DestZip: '000991234' }), { key: rater });
      expect(both.statusCode).toBe(200);
      expect(both.json()).toEqual(
        notServiceable("no zone for 00012 to 00099: ZIP3 000 is in neither the rate card's zone rules nor the ZIP geography"),
      );
    });

    it('a company with no card at all', async () => {
      const { database, clock } = ctx();
      const bare = await createTenant(database.db, clock);
      const key = await createKey(database.db, clock, bare, 'admin');
      const res = await post(ask(1001), { key });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(notServiceable(noCard(1001)));
      const explain = await post(ask(1001), { key, path: EXPLAIN });
      expect(explain.statusCode).toBe(200);
      expect(explain.json()).toEqual({ ...notServiceable(noCard(1001)), Explanation: null });
    });
  });

  describe('a card that asks for warnings', () => {
    it('answers a distance-estimated zone with Status true, severity 1, RateEngine.Zone and the warning', async () => {
      const { database, clock } = ctx();
      const flagged = await createTenant(database.db, clock);
      await loadRateCard(database.db, clock, {
        companyId: flagged.companyId,
        text: variant((card) => {
          card.flagEstimatedZones = true;
        }),
      });
      const key = await createKey(database.db, clock, flagged, 'admin');
      const res = await post(ask(1001), { key });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        Result: EXAMPLE_QUOTE,
        Page: null,
        ErrorMsg: 'zone 8 was estimated from the 2449 miles between ZIP3 900 and 100',
        ErrorSeverity: 1,
        ErrorSource: 'RateEngine.Zone',
        Status: true,
      });
      // A zone from the card's own rules is not estimated: no warning.
      const override = await post(ask(1001, { DestZip: '00601' }), { key });
      expect(override.json()).toEqual(quoted([{ name: 'Ground', Price: '106.8800' }]));
    });
  });

  describe('/lastmile/explain', () => {
    it('answers the same Result with the card, the zone and every charge, which sum to each Price', async () => {
      const res = await post(ask(1001), { key: rater, path: EXPLAIN });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect({ ...body, Explanation: undefined }).toEqual({ ...quoted(EXAMPLE_QUOTE), Explanation: undefined });
      expect(body.Explanation).toEqual({
        Card: {
          Name: 'Demo Parcel Rates 2026',
          Version: 1,
          BoundToUserID: null,
          Date: '2026-03-05',
          Currency: 'USD',
          Units: { length: 'in', weight: 'lb' },
          AssumeResidential: true,
          MarkupPercent: '0',
        },
        Zone: { Zone: 8, Source: 'distance', Rule: 'zones.distanceBands[6]', Miles: 2449 },
        Services: [
          {
            Service: 'Economy',
            Quoted: true,
            Zone: 8,
            Weights: { Sides: ['12', '10', '8'], Actual: '5.2', Rated: '6', Dimensional: null, Billable: '6', MinimumFrom: null },
            Charges: [
              { Name: 'Base', Cost: '22.9', Amount: '22.9000', Rule: 'services[1].rates.breaks[5] (up to 6) × zone 8' },
              { Name: 'Fuel', Cost: '4.52275', Amount: '4.5200', Rule: 'fuel: 19.75 % of Base (22.9)' },
            ],
            Total: '27.4200',
          },
          {
            Service: 'Ground',
            Quoted: true,
            Zone: 8,
            Weights: { Sides: ['12', '10', '8'], Actual: '5.2', Rated: '6', Dimensional: '7', Billable: '7', MinimumFrom: null },
            Charges: [
              { Name: 'Base', Cost: '26', Amount: '26.0000', Rule: 'services[0].rates.breaks[6] (up to 7) × zone 8' },
              { Name: 'Residential', Cost: '5.85', Amount: '5.8500', Rule: 'surcharges[0].amount' },
              { Name: 'Fuel', Cost: '6.290375', Amount: '6.2900', Rule: 'fuel: 19.75 % of Base + Residential (31.85)' },
            ],
            Total: '38.1400',
          },
        ],
      });
      assertChargesSum(body);
    });

    it('lists a refused service with Quoted false and its reason', async () => {
      /*
       * 71 lb. Ground: billable max(71, 7) = 71; base "up to 71", zone 8 = 160.40; Residential 5.85;
       * Additional Handling - Weight (over 50 lb), zone 8 = 42.55; fuel 19.75 % of 208.80 = 41.238
       * → 41.24; total 160.40 + 5.85 + 42.55 + 41.24 = 250.04. Economy refuses over 70 lb.
       */
      const res = await post(ask(1001, { Weight: '71' }), { key: rater, path: EXPLAIN });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.Result).toEqual([{ name: 'Ground', Price: '250.0400' }]);
      expect(body.Explanation.Services).toEqual([
        {
          Service: 'Ground',
          Quoted: true,
          Zone: 8,
          Weights: { Sides: ['12', '10', '8'], Actual: '71', Rated: '71', Dimensional: '7', Billable: '71', MinimumFrom: null },
          Charges: [
            { Name: 'Base', Cost: '160.4', Amount: '160.4000', Rule: 'services[0].rates.breaks[70] (up to 71) × zone 8' },
            { Name: 'Residential', Cost: '5.85', Amount: '5.8500', Rule: 'surcharges[0].amount' },
            { Name: 'Additional Handling - Weight', Cost: '42.55', Amount: '42.5500', Rule: 'surcharges[4].amountByZone.8' },
            {
              Name: 'Fuel',
              Cost: '41.238',
              Amount: '41.2400',
              Rule: 'fuel: 19.75 % of Base + Residential + Additional Handling - Weight (208.8)',
            },
          ],
          Total: '250.0400',
        },
        { Service: 'Economy', Quoted: false, Reason: 'the weight 71 lb is over the limit of 70 lb' },
      ]);
      assertChargesSum(body);
    });

    it('explains a parcel no service takes: Status false, and every service with its reason', async () => {
      const res = await post(ask(1001, { Weight: '151' }), { key: rater, path: EXPLAIN });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect({ ...body, Explanation: undefined }).toEqual({
        ...notServiceable('Ground: the weight 151 lb is over the limit of 150 lb; Economy: the weight 151 lb is over the limit of 70 lb'),
        Explanation: undefined,
      });
      expect(body.Explanation.Services).toEqual([
        { Service: 'Ground', Quoted: false, Reason: 'the weight 151 lb is over the limit of 150 lb' },
        { Service: 'Economy', Quoted: false, Reason: 'the weight 151 lb is over the limit of 70 lb' },
      ]);
    });
  });
});

/** Each quoted service's charge amounts sum exactly to its Total and to its Result Price. */
function assertChargesSum(body: {
  Result: { name: string; Price: string }[];
  Explanation: { Services: { Service: string; Quoted: boolean; Charges?: { Amount: string }[]; Total?: string }[] };
}) {
  const cents = (amount: string) => Math.round(Number(amount) * 10_000);
  for (const service of body.Explanation.Services.filter((s) => s.Quoted)) {
    const sum = service.Charges!.reduce((total, charge) => total + cents(charge.Amount), 0);
    expect({ service: service.Service, sum }).toEqual({ service: service.Service, sum: cents(service.Total!) });
    expect(body.Result.find((r) => r.name === service.Service)?.Price).toBe(service.Total);
  }
}

describeEachDialect('rate engine: which card is in force', (dialect) => {
  const ctx = useTestApp(dialect);
  const post = poster(ctx);

  /** A company with an admin key and a rater key for UserIDs 1001 and 1002. */
  async function company() {
    const { database, clock } = ctx();
    const tenant = await createTenant(database.db, clock);
    return {
      tenant,
      companyId: tenant.companyId,
      admin: await createKey(database.db, clock, tenant, 'admin'),
      rater: await createKey(database.db, clock, tenant, 'rater', { userIds: [1001, 1002] }),
    };
  }
  const load = (companyId: string, text: string, userId?: number) =>
    loadRateCard(ctx().database.db, ctx().clock, { companyId, text, ...(userId === undefined ? {} : { userId }) });
  const versions = async (companyId: string) =>
    (await listRateCards(ctx().database.db, ctx().clock, companyId)).map(({ userId, version, name, inForce }) => ({
      userId,
      version,
      name,
      inForce,
    }));
  /** Moves the test clock past the second a process may remember its choice of card. */
  const afterTheSecond = () => ctx().clock.advance(1001);

  it('a card bound to a UserID wins over the company default for that UserID only', async () => {
    const { companyId, rater } = await company();
    await load(companyId, EXAMPLE_TEXT);
    const bound = await load(companyId, MARKED_UP, 1001);
    expect(bound).toEqual({
      changed: true,
      card: {
        id: expect.any(Number),
        company: companyId,
        userId: 1001,
        version: 1,
        name: 'Marked up',
        effectiveFrom: '2026-01-01',
        effectiveTo: null,
        timeZone: 'America/New_York',
        loadedAt: new Date(ctx().clock.now()).toISOString(),
        inForce: true,
      },
    });
    expect((await post(ask(1001), { key: rater })).json()).toEqual(quoted(MARKED_UP_QUOTE));
    expect((await post(ask(1002), { key: rater })).json()).toEqual(quoted(EXAMPLE_QUOTE));
    const explained = (await post(ask(1001), { key: rater, path: EXPLAIN })).json();
    expect(explained.Explanation.Card).toMatchObject({ Name: 'Marked up', Version: 1, BoundToUserID: 1001, MarkupPercent: '10' });
  });

  it('a bound card alone: its UserID is quoted, the others have no card', async () => {
    const { companyId, admin } = await company();
    await load(companyId, EXAMPLE_TEXT, 1001);
    expect((await post(ask(1001), { key: admin })).json()).toEqual(quoted(EXAMPLE_QUOTE));
    expect((await post(ask(1002), { key: admin })).json()).toEqual(notServiceable(noCard(1002)));
  });

  it('the newest version in force wins, on every quote within a second of its load', async () => {
    const { companyId, rater } = await company();
    expect((await load(companyId, EXAMPLE_TEXT)).card.version).toBe(1);
    expect((await post(ask(1001), { key: rater })).json()).toEqual(quoted(EXAMPLE_QUOTE));
    const second = await load(companyId, MARKED_UP);
    expect(second).toMatchObject({ changed: true, card: { version: 2, name: 'Marked up' } });
    afterTheSecond();
    expect((await post(ask(1001), { key: rater })).json()).toEqual(quoted(MARKED_UP_QUOTE));
    const explained = (await post(ask(1001), { key: rater, path: EXPLAIN })).json();
    expect(explained.Explanation.Card).toMatchObject({ Name: 'Marked up', Version: 2, BoundToUserID: null });
    expect(await versions(companyId)).toEqual([
      { userId: null, version: 2, name: 'Marked up', inForce: true },
      { userId: null, version: 1, name: 'Demo Parcel Rates 2026', inForce: false },
    ]);
  });

  it("a version effective from a later day is in force from that day's midnight in the card's time zone", async () => {
    const { companyId, rater } = await company();
    const { clock } = ctx();
    await load(companyId, EXAMPLE_TEXT);
    // Tokyo is UTC+9: its next midnight comes at 15:00 UTC, while the UTC and New York day is still the same.
    const now = new Date(clock.now());
    const tokyoMidnightUtc = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), 15);
    expect(tokyoMidnightUtc - clock.now()).toBeGreaterThan(5000);
    const tokyoDay = new Date(tokyoMidnightUtc + 9 * 3_600_000).toISOString().slice(0, 10);
    const utcDay = now.toISOString().slice(0, 10);
    expect(tokyoDay > utcDay).toBe(true);
    const tokyo = variant((card) => {
      card.name = 'Tokyo';
      card.timeZone = 'Asia/Tokyo';
      card.effective = { from: tokyoDay };
      card.markup = { percent: '10' };
    });
    expect((await load(companyId, tokyo)).card).toMatchObject({ version: 2, effectiveFrom: tokyoDay, timeZone: 'Asia/Tokyo' });

    clock.advance(tokyoMidnightUtc - 1 - clock.now());
    expect(await versions(companyId)).toEqual([
      { userId: null, version: 2, name: 'Tokyo', inForce: false },
      { userId: null, version: 1, name: 'Demo Parcel Rates 2026', inForce: true },
    ]);
    // One millisecond before Tokyo's midnight: the example card prices.
    expect((await post(ask(1001), { key: rater })).json()).toEqual(quoted(EXAMPLE_QUOTE));

    clock.advance(1);
    expect(new Date(clock.now()).toISOString().slice(0, 10)).toBe(utcDay);
    expect(await versions(companyId)).toEqual([
      { userId: null, version: 2, name: 'Tokyo', inForce: true },
      { userId: null, version: 1, name: 'Demo Parcel Rates 2026', inForce: false },
    ]);
    // At midnight in Tokyo (another UserID, so that no remembered choice answers): the new version.
    expect((await post(ask(1002), { key: rater })).json()).toEqual(quoted(MARKED_UP_QUOTE));
    const explained = (await post(ask(1002), { key: rater, path: EXPLAIN })).json();
    expect(explained.Explanation.Card).toMatchObject({ Name: 'Tokyo', Version: 2, Date: tokyoDay });
    afterTheSecond();
    expect((await post(ask(1001), { key: rater })).json()).toEqual(quoted(MARKED_UP_QUOTE));
  });

  it('a card whose window has not started, or has ended, is not in force: no card', async () => {
    const { companyId: future, admin: futureAdmin } = await company();
    await load(
      future,
      variant((card) => {
        card.effective = { from: '2099-01-01' };
      }),
    );
    expect((await post(ask(1001), { key: futureAdmin })).json()).toEqual(notServiceable(noCard(1001)));

    const { companyId: past, admin: pastAdmin } = await company();
    await load(
      past,
      variant((card) => {
        card.effective = { from: '2025-01-01', to: '2025-12-31' };
      }),
    );
    const res = await post(ask(1001), { key: pastAdmin });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(notServiceable(noCard(1001)));
    expect(await versions(past)).toEqual([{ userId: null, version: 1, name: 'Demo Parcel Rates 2026', inForce: false }]);
    expect(await versions(future)).toEqual([{ userId: null, version: 1, name: 'Demo Parcel Rates 2026', inForce: false }]);
  });

  it("a card's last day is in force through that day, read in the card's time zone", async () => {
    const { clock } = ctx();
    const today = (zone: string) => DateTime.fromMillis(clock.now(), { zone }).toISODate()!;
    // Kiritimati (UTC+14) is a day ahead of UTC from 10:00 UTC; the clock is past that.
    expect(today('Pacific/Kiritimati') > today('UTC')).toBe(true);

    const { companyId: lastDay, admin: lastDayAdmin } = await company();
    await load(
      lastDay,
      variant((card) => {
        card.effective = { from: '2026-01-01', to: today('America/New_York') };
      }),
    );
    expect((await post(ask(1001), { key: lastDayAdmin })).json()).toEqual(quoted(EXAMPLE_QUOTE));

    // Ending on the UTC day: in Kiritimati that day is over.
    const { companyId: over, admin: overAdmin } = await company();
    await load(
      over,
      variant((card) => {
        card.timeZone = 'Pacific/Kiritimati';
        card.effective = { from: '2026-01-01', to: today('UTC') };
      }),
    );
    expect((await post(ask(1001), { key: overAdmin })).json()).toEqual(notServiceable(noCard(1001)));
  });

  it('an ended bound card gives way to the company default', async () => {
    const { companyId, rater } = await company();
    await load(companyId, EXAMPLE_TEXT);
    await load(
      companyId,
      variant((card) => {
        card.name = 'Last year';
        card.effective = { from: '2025-01-01', to: '2025-12-31' };
        card.markup = { percent: '10' };
      }),
      1001,
    );
    expect((await post(ask(1001), { key: rater })).json()).toEqual(quoted(EXAMPLE_QUOTE));
  });

  it('a refused load leaves the card in force', async () => {
    const { companyId, rater } = await company();
    await load(companyId, EXAMPLE_TEXT);
    const broken = variant((card) => {
      card.currency = 'usd';
      card.services[1].rates.zones = 'all';
      delete card.name;
    });
    const refusal = await load(companyId, broken).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(RateCardError);
    expect((refusal as RateCardError).problems).toEqual([
      'name is required',
      'currency must be an ISO 4217 code such as USD',
      'services[1].rates.zones must be an array',
    ]);
    const compileRefusal = await load(
      companyId,
      variant((card) => {
        card.services[0].rates.breaks[2].prices.pop();
        card.fuel.appliesTo.push('Sunday');
      }),
    ).catch((error: unknown) => error);
    expect((compileRefusal as RateCardError).problems).toEqual([
      'services[0].rates.breaks[2].prices has 7 prices; services[0].rates.zones names 8 zones',
      'fuel.appliesTo[8] names Sunday, which is neither Base nor a surcharge of the card',
    ]);
    const notACard = await load(companyId, 'name: [unclosed').catch((error: unknown) => error);
    expect(notACard).toBeInstanceOf(RateCardError);
    afterTheSecond();
    expect((await post(ask(1001), { key: rater })).json()).toEqual(quoted(EXAMPLE_QUOTE));
    expect(await versions(companyId)).toEqual([{ userId: null, version: 1, name: 'Demo Parcel Rates 2026', inForce: true }]);
  });

  it('loading the identical card again changes nothing and adds no version', async () => {
    const { companyId } = await company();
    const first = await load(companyId, EXAMPLE_TEXT);
    expect(first.changed).toBe(true);
    const again = await load(companyId, EXAMPLE_TEXT);
    expect(again).toEqual({ changed: false, card: first.card });
    // The same content in another layout (YAML's JSON subset, other blanks) is the same card.
    const reformatted = await load(companyId, JSON.stringify(exampleCard(), null, 4));
    expect(reformatted).toEqual({ changed: false, card: first.card });
    expect(await versions(companyId)).toEqual([{ userId: null, version: 1, name: 'Demo Parcel Rates 2026', inForce: true }]);
    const rows = await ctx().database.db.selectFrom('rate_cards').select('id').where('company_id', '=', companyId).execute();
    expect(rows).toHaveLength(1);
  });

  it('listRateCards marks exactly the version in force of each binding', async () => {
    const { companyId } = await company();
    await load(companyId, EXAMPLE_TEXT);
    await load(companyId, MARKED_UP);
    await load(
      companyId,
      variant((card) => {
        card.name = 'Next year';
        card.effective = { from: '2099-01-01' };
      }),
    );
    await load(companyId, EXAMPLE_TEXT, 1001);
    await load(
      companyId,
      variant((card) => {
        card.name = 'Future only';
        card.effective = { from: '2099-01-01' };
      }),
      1002,
    );
    expect(await versions(companyId)).toEqual([
      { userId: null, version: 3, name: 'Next year', inForce: false },
      { userId: null, version: 2, name: 'Marked up', inForce: true },
      { userId: null, version: 1, name: 'Demo Parcel Rates 2026', inForce: false },
      { userId: 1001, version: 1, name: 'Demo Parcel Rates 2026', inForce: true },
      { userId: 1002, version: 1, name: 'Future only', inForce: false },
    ]);
    // Another company's list holds none of these.
    const { companyId: empty } = await company();
    expect(await listRateCards(ctx().database.db, ctx().clock, empty)).toEqual([]);
  });
});

describeEachDialect('rate engine: config.only', (dialect) => {
  describe('only: rate', () => {
    const ctx = useTestApp(dialect, { only: 'rate' });
    const post = poster(ctx);

    it('serves the rate engine and no EDI route', async () => {
      const { database, clock } = ctx();
      const tenant = await createTenant(database.db, clock);
      await loadRateCard(database.db, clock, { companyId: tenant.companyId, text: EXAMPLE_TEXT });
      const admin = await createKey(database.db, clock, tenant, 'admin');
      const quote = await post(ask(1001), { key: admin });
      expect(quote.statusCode).toBe(200);
      expect(quote.json()).toEqual(quoted(EXAMPLE_QUOTE));
      const edi = await ctx().post('/edi/item-master/search-by-paging', { CompanyID: tenant.companyId }, admin);
      expect(edi.statusCode).toBe(404);
    });
  });

  describe('only: edi', () => {
    const ctx = useTestApp(dialect, { only: 'edi' });
    const post = poster(ctx);

    it('serves the EDI API and no rate route', async () => {
      const { database, clock } = ctx();
      const tenant = await createTenant(database.db, clock);
      await loadRateCard(database.db, clock, { companyId: tenant.companyId, text: EXAMPLE_TEXT });
      const admin = await createKey(database.db, clock, tenant, 'admin');
      expect((await post(ask(1001), { key: admin })).statusCode).toBe(404);
      expect((await post(ask(1001), { key: admin, path: EXPLAIN })).statusCode).toBe(404);
      const edi = await ctx().post(
        '/edi/item-master/search-by-paging',
        { CompanyID: tenant.companyId, CustomerID: tenant.customerIds[0] },
        admin,
      );
      expect(edi.statusCode).toBe(200);
    });
  });
});

describeEachDialect('rate engine: an internal error', (dialect) => {
  const ctx = useTestApp(dialect);
  const post = poster(ctx);

  it('answers severity 5 with the request id, and no SQL on the wire or in the log', async () => {
    const { database, clock, logs } = ctx();
    const tenant = await createTenant(database.db, clock);
    await loadRateCard(database.db, clock, { companyId: tenant.companyId, text: EXAMPLE_TEXT });
    const admin = await createKey(database.db, clock, tenant, 'admin');
    // The key lookup is remembered first, so that only the card lookup meets the missing table.
    expect((await post(ask(1001), { key: admin })).statusCode).toBe(200);
    await sql`drop table rate_cards`.execute(database.db);

    const res = await post(ask(2002), { key: admin });
    expect(res.statusCode).toBe(500);
    const body = res.json();
    const requestId = /^Internal error \(request id ([0-9a-f-]{36})\)$/.exec(body.ErrorMsg)?.[1];
    expect(requestId).toBeDefined();
    expect(body).toEqual(envelope(5, 'RateEngine.Internal', `Internal error (request id ${requestId})`));
    expect(res.body).not.toMatch(/rate_cards|select|relation|sqlite|stack/i);

    const lines = logs.filter((line) => line.reqId === requestId);
    expect(lines.map((line) => line.msg)).toEqual(['request failed', 'request']);
    expect(lines[0]).toMatchObject({ level: 50, error: { type: expect.any(String) } });
    expect(lines[1]).toMatchObject({ statusCode: 500, url: RATE });
    expect(JSON.stringify(logs)).not.toMatch(/rate_cards|select |relation|no such table/i);
  });
});
