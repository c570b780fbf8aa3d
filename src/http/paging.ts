import { Type, type Static } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';

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

/** The item master's top-level PageNo, read as the page number (docs/compatibility.md). */
export const TopLevelPageNoSchema = { ...PageNo, description: 'Page number (the spec lists it at the top level).' };

export const PagingSchema = Type.Object({
  totalCount: Type.Integer(),
  pageNo: Type.Integer(),
  totalPage: Type.Integer(),
  startIndex: Type.Integer({ description: '1-based index of the first record on the page; 0 when the page is empty.' }),
  endIndex: Type.Integer({ description: '1-based index of the last record on the page; 0 when the page is empty.' }),
  limit: Type.Integer({ description: 'Page size.' }),
});
export type Paging = Static<typeof PagingSchema>;

export interface PageRequest {
  pageNo: number;
  pageSize: number;
  offset: number;
}

/** `Paging.PageNo` wins over its alias `Paging.PagingNo`, which wins over a top-level `PageNo`. */
export function pageRequest(paging: PagingRequest | undefined, topLevelPageNo?: number): PageRequest {
  const pageNo = paging?.PageNo ?? paging?.PagingNo ?? topLevelPageNo ?? 1;
  const pageSize = paging?.PageSize ?? DEFAULT_PAGE_SIZE;
  return { pageNo, pageSize, offset: (pageNo - 1) * pageSize };
}

export function pagingOf(page: PageRequest, totalCount: number, rowsOnPage: number): Paging {
  return {
    totalCount,
    pageNo: page.pageNo,
    totalPage: Math.ceil(totalCount / page.pageSize),
    startIndex: rowsOnPage > 0 ? page.offset + 1 : 0,
    endIndex: rowsOnPage > 0 ? page.offset + rowsOnPage : 0,
    limit: page.pageSize,
  };
}

/** Array-returning searches carry their paging in headers, since the body has no room for it. */
export function sendPagingHeaders(reply: FastifyReply, paging: Paging): void {
  reply.header('X-Total-Count', String(paging.totalCount));
  reply.header('X-Page-No', String(paging.pageNo));
  reply.header('X-Page-Size', String(paging.limit));
}
