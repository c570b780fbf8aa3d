import { Type, type Static } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { KeyPosition, PagePosition, PageSlice } from '../db/keyset.js';
import { invalid } from '../lib/refusal.js';

/** The page a search asks for, and the paging object it answers with (docs/compatibility.md, spec 2.11). */

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;
const MAX_PAGE_NO = 1_000_000;

const PageNo = Type.Integer({ minimum: 1, maximum: MAX_PAGE_NO, description: 'Page number, 1-based (default 1).' });

export const PagingRequestSchema = Type.Object(
  {
    PageNo: Type.Optional(PageNo),
    PagingNo: Type.Optional({ ...PageNo, description: 'Alias of PageNo used by the published examples.' }),
    PageSize: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_PAGE_SIZE,
        description: `Records per page, 1 to ${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE}; a Wharf extension).`,
      }),
    ),
  },
  { description: 'Which page to return.' },
);
export type PagingRequest = Static<typeof PagingRequestSchema>;

/** The longest cursor a search hands out, with room to spare (a time, a 50-character number, a position). */
const MAX_CURSOR = 200;

/** Paging of the searches that hand out cursors (docs/paging.md). */
export const CursorPagingRequestSchema = Type.Object(
  {
    ...PagingRequestSchema.properties,
    After: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_CURSOR,
        pattern: '^[A-Za-z0-9_-]+$',
        'x-message': 'must be the paging.next of an earlier page of this search',
        description:
          'The `paging.next` of the page before (a Wharf extension): answers the page after it at the cost of a first page, however deep; PageNo is then not read.',
      }),
    ),
  },
  { description: 'Which page to return: by PageNo, or after the page before (After).' },
);
export type CursorPagingRequest = Static<typeof CursorPagingRequestSchema>;

/** The item master's top-level PageNo, read as the page number (docs/compatibility.md). */
export const TopLevelPageNoSchema = { ...PageNo, description: 'Page number (the spec lists it at the top level).' };

export const PagingSchema = Type.Object({
  totalCount: Type.Integer(),
  pageNo: Type.Integer(),
  totalPage: Type.Integer(),
  startIndex: Type.Integer({ description: '1-based index of the first record on the page; 0 when the page is empty.' }),
  endIndex: Type.Integer({ description: '1-based index of the last record on the page; 0 when the page is empty.' }),
  limit: Type.Integer({ description: 'Page size.' }),
  next: Type.Optional(
    Type.String({
      description:
        'Send as Paging.After to read the next page at the cost of a first page (a Wharf extension); absent on the last page and in searches that take no After.',
    }),
  ),
});
export type Paging = Static<typeof PagingSchema>;

export interface PageRequest<Position = PagePosition> extends PageSlice<Position> {
  pageNo: number;
  pageSize: number;
}

/**
 * A cursor: where the page before ended in its search's order. base64url of JSON, so that it
 * travels in a JSON string untouched; opaque to clients. A time and its tie-breaker are two values,
 * a key alone one: a cursor of one kind of order is never read as the other.
 */
function encodeCursor(last: PagePosition | KeyPosition): string {
  return Buffer.from(JSON.stringify('key' in last ? [last.key] : [last.at, last.tie])).toString('base64url');
}

const NOT_A_CURSOR = 'Paging.After must be the paging.next of an earlier page of this search';

function decodeCursor(cursor: string): unknown[] {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid(NOT_A_CURSOR);
  }
  if (!Array.isArray(decoded)) throw invalid(NOT_A_CURSOR);
  return decoded;
}

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
const isKey = (value: unknown): value is string => typeof value === 'string' && value.length <= 50;

/** What breaks ties on a search's time: a row's id (a number), or a document's SVCPOID (text). */
export type TieKind = 'id' | 'svcpoid';

/** A time and its tie-breaker; a tie of the other kind is a cursor of another search's order, not of this one. */
/** Said to a cursor sent to a search that hands out none, instead of answering its first page again. */
const NO_CURSORS = 'Paging.After is not taken by this search: page it by PageNo';

function positionOf(cursor: string, kind: TieKind | undefined): PagePosition {
  if (kind === undefined) throw invalid(NO_CURSORS);
  const decoded = decodeCursor(cursor);
  const [at, tie] = decoded;
  const tieFits = kind === 'id' ? isCount(tie) : isKey(tie);
  if (decoded.length !== 2 || !isCount(at) || !tieFits) throw invalid(NOT_A_CURSOR);
  return { at, tie: tie as PagePosition['tie'] };
}

function keyPositionOf(cursor: string): KeyPosition {
  const decoded = decodeCursor(cursor);
  const [key] = decoded;
  if (decoded.length !== 1 || !isKey(key)) throw invalid(NOT_A_CURSOR);
  return { key };
}

function requestOf<Position>(
  paging: (PagingRequest & { After?: string }) | undefined,
  topLevelPageNo: number | undefined,
  after: (cursor: string) => Position,
): PageRequest<Position> {
  const pageSize = paging?.PageSize ?? DEFAULT_PAGE_SIZE;
  if (paging?.After !== undefined) return { pageNo: 1, pageSize, offset: 0, limit: pageSize, after: after(paging.After) };
  const pageNo = paging?.PageNo ?? paging?.PagingNo ?? topLevelPageNo ?? 1;
  return { pageNo, pageSize, offset: (pageNo - 1) * pageSize, limit: pageSize };
}

/**
 * `Paging.After` wins over page numbers; then `Paging.PageNo` over its alias `Paging.PagingNo`,
 * which wins over a top-level `PageNo`. A page after a cursor starts at the cursor's row, wherever
 * that is now: its search counts the rows before it (pageAt). For the searches ordered by a time,
 * then a tie-breaker of the kind `tie`: a cursor with a tie of the other kind comes from another
 * search (docs/paging.md). The searches that hand out no cursor name none, and refuse one.
 */
export function pageRequest(paging: (PagingRequest & { After?: string }) | undefined, tie?: TieKind): PageRequest {
  return requestOf(paging, undefined, (cursor) => positionOf(cursor, tie));
}

/** pageRequest for a search ordered by one unique key alone (KeyPosition). */
export function pageRequestByKey(
  paging: (PagingRequest & { After?: string }) | undefined,
  topLevelPageNo?: number,
): PageRequest<KeyPosition> {
  return requestOf(paging, topLevelPageNo, keyPositionOf);
}

/** A page after a cursor, placed: `before` rows of the search come before it. */
export function pageAt<Position>(page: PageRequest<Position>, before: number): PageRequest<Position> {
  return { ...page, offset: before, pageNo: Math.floor(before / page.pageSize) + 1 };
}

/** The answer's paging object; with the page's last row in its search's order, the cursor of the page after. */
export function pagingOf(
  page: Pick<PageRequest, 'pageNo' | 'pageSize' | 'offset'>,
  totalCount: number,
  rowsOnPage: number,
  last?: PagePosition | KeyPosition,
): Paging {
  const endIndex = rowsOnPage > 0 ? page.offset + rowsOnPage : 0;
  return {
    totalCount,
    pageNo: page.pageNo,
    totalPage: Math.ceil(totalCount / page.pageSize),
    startIndex: rowsOnPage > 0 ? page.offset + 1 : 0,
    endIndex,
    limit: page.pageSize,
    ...(last !== undefined && endIndex < totalCount ? { next: encodeCursor(last) } : {}),
  };
}

/** Array-returning searches carry their paging in headers, since the body has no room for it; the cursor in X-Page-Next. */
export function sendPagingHeaders(reply: FastifyReply, paging: Paging): void {
  reply.header('X-Total-Count', String(paging.totalCount));
  reply.header('X-Page-No', String(paging.pageNo));
  reply.header('X-Page-Size', String(paging.limit));
  if (paging.next !== undefined) reply.header('X-Page-Next', paging.next);
}
