import { describe, expect, it } from 'vitest';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, pageRequest, pageRequestByKey, pagingOf } from '../../src/http/paging.js';

describe('pageRequest', () => {
  it('defaults to page 1 of 100', () => {
    expect(DEFAULT_PAGE_SIZE).toBe(100);
    expect(MAX_PAGE_SIZE).toBe(1000);
    expect(pageRequest(undefined)).toEqual({ pageNo: 1, pageSize: 100, offset: 0, limit: 100 });
    expect(pageRequest({})).toEqual({ pageNo: 1, pageSize: 100, offset: 0, limit: 100 });
    expect(pageRequest({ PageSize: 25 })).toEqual({ pageNo: 1, pageSize: 25, offset: 0, limit: 25 });
  });

  it('prefers Paging.PageNo, then Paging.PagingNo, then the top-level PageNo (the item master’s)', () => {
    expect(pageRequestByKey({ PageNo: 3, PagingNo: 5, PageSize: 10 }, 7)).toEqual({ pageNo: 3, pageSize: 10, offset: 20, limit: 10 });
    expect(pageRequestByKey({ PagingNo: 5, PageSize: 10 }, 7)).toEqual({ pageNo: 5, pageSize: 10, offset: 40, limit: 10 });
    expect(pageRequestByKey({ PageSize: 10 }, 7)).toEqual({ pageNo: 7, pageSize: 10, offset: 60, limit: 10 });
    expect(pageRequestByKey(undefined, 2)).toEqual({ pageNo: 2, pageSize: 100, offset: 100, limit: 100 });
    expect(pageRequestByKey({ PageNo: 1 }, 9)).toEqual({ pageNo: 1, pageSize: 100, offset: 0, limit: 100 });
  });

  it('computes the offset of the last allowed page size', () => {
    expect(pageRequest({ PageNo: 4, PageSize: 1000 })).toEqual({ pageNo: 4, pageSize: 1000, offset: 3000, limit: 1000 });
  });

  it('reads back the cursor pagingOf handed out, in the order of its search: a time and its tie-breaker, or a key', () => {
    const cursorOf = (last: Parameters<typeof pagingOf>[3]) => pagingOf(pageRequest({ PageSize: 2 }), 3, 2, last).next!;
    const byId = cursorOf({ at: 1_700_000_000_000, tie: 42 });
    const bySvcpoid = cursorOf({ at: 1_700_000_000_000, tie: 'DN-7' });
    const byKey = cursorOf({ key: 'MUG-BLUE-12' });
    const after = (cursor: string) => ({ After: cursor, PageNo: 5, PageSize: 2 });
    expect(pageRequest(after(byId), 'id')).toEqual({
      pageNo: 1,
      pageSize: 2,
      offset: 0,
      limit: 2,
      after: { at: 1_700_000_000_000, tie: 42 },
    });
    expect(pageRequest(after(bySvcpoid), 'svcpoid').after).toEqual({ at: 1_700_000_000_000, tie: 'DN-7' });
    expect(pageRequestByKey(after(byKey)).after).toEqual({ key: 'MUG-BLUE-12' });
    // Another search's order is no cursor of this one.
    for (const [read, cursor] of [
      [() => pageRequest(after(bySvcpoid), 'id'), bySvcpoid],
      [() => pageRequest(after(byId), 'svcpoid'), byId],
      [() => pageRequest(after(byKey), 'id'), byKey],
      [() => pageRequestByKey(after(byId)), byId],
    ] as const)
      expect(read, cursor).toThrow('Paging.After must be the paging.next of an earlier page of this search');
    // A search that hands out no cursor takes none.
    expect(() => pageRequest(after(byId))).toThrow('Paging.After is not taken by this search: page it by PageNo');
  });
});

describe('pagingOf', () => {
  it('answers an empty result with 0/0 indexes and no pages', () => {
    expect(pagingOf(pageRequest(undefined), 0, 0)).toEqual({
      totalCount: 0,
      pageNo: 1,
      totalPage: 0,
      startIndex: 0,
      endIndex: 0,
      limit: 100,
    });
  });

  it('counts whole pages when the total is an exact multiple of the page size', () => {
    const last = pageRequest({ PageNo: 3, PageSize: 10 });
    expect(pagingOf(last, 30, 10)).toEqual({ totalCount: 30, pageNo: 3, totalPage: 3, startIndex: 21, endIndex: 30, limit: 10 });
    const first = pageRequest({ PageNo: 1, PageSize: 10 });
    expect(pagingOf(first, 30, 10)).toEqual({ totalCount: 30, pageNo: 1, totalPage: 3, startIndex: 1, endIndex: 10, limit: 10 });
  });

  it('ends a partial last page at the last record', () => {
    const page = pageRequest({ PageNo: 3, PageSize: 10 });
    expect(pagingOf(page, 25, 5)).toEqual({ totalCount: 25, pageNo: 3, totalPage: 3, startIndex: 21, endIndex: 25, limit: 10 });
    expect(pagingOf(pageRequest({ PageSize: 7 }), 1, 1)).toEqual({
      totalCount: 1,
      pageNo: 1,
      totalPage: 1,
      startIndex: 1,
      endIndex: 1,
      limit: 7,
    });
  });

  it('answers a page past the end with 0/0 indexes and the real totals', () => {
    const page = pageRequest({ PageNo: 9, PageSize: 10 });
    expect(pagingOf(page, 25, 0)).toEqual({ totalCount: 25, pageNo: 9, totalPage: 3, startIndex: 0, endIndex: 0, limit: 10 });
  });
});
