import { describe, expect, it } from 'vitest';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, pageAt, pageRequest, pagingOf } from '../../src/http/paging.js';

describe('pageRequest', () => {
  it('defaults to page 1 of 100', () => {
    expect(DEFAULT_PAGE_SIZE).toBe(100);
    expect(MAX_PAGE_SIZE).toBe(1000);
    expect(pageRequest(undefined)).toEqual({ pageNo: 1, pageSize: 100, offset: 0, limit: 100 });
    expect(pageRequest({})).toEqual({ pageNo: 1, pageSize: 100, offset: 0, limit: 100 });
    expect(pageRequest({ PageSize: 25 })).toEqual({ pageNo: 1, pageSize: 25, offset: 0, limit: 25 });
  });

  it('prefers Paging.PageNo, then Paging.PagingNo, then the top-level PageNo', () => {
    expect(pageRequest({ PageNo: 3, PagingNo: 5, PageSize: 10 }, 7)).toEqual({ pageNo: 3, pageSize: 10, offset: 20, limit: 10 });
    expect(pageRequest({ PagingNo: 5, PageSize: 10 }, 7)).toEqual({ pageNo: 5, pageSize: 10, offset: 40, limit: 10 });
    expect(pageRequest({ PageSize: 10 }, 7)).toEqual({ pageNo: 7, pageSize: 10, offset: 60, limit: 10 });
    expect(pageRequest(undefined, 2)).toEqual({ pageNo: 2, pageSize: 100, offset: 100, limit: 100 });
    expect(pageRequest({ PageNo: 1 }, 9)).toEqual({ pageNo: 1, pageSize: 100, offset: 0, limit: 100 });
  });

  it('reads a cursor as the place after which the page starts, to be placed by its search', () => {
    const first = pagingOf(pageRequest({ PageSize: 2 }), 5, 2, { at: 1_772_733_600_000, tie: 'DN-10' });
    expect(first.next).toBe(Buffer.from('[1772733600000,"DN-10"]').toString('base64url'));
    const after = pageRequest({ After: first.next, PageNo: 9, PageSize: 2 });
    expect(after).toEqual({ pageNo: 1, pageSize: 2, offset: 0, limit: 2, after: { at: 1_772_733_600_000, tie: 'DN-10' } });
    expect(pageAt(after, 2)).toEqual({ ...after, pageNo: 2, offset: 2 });
    // The last page hands out no cursor.
    expect(pagingOf(pageAt(after, 4), 5, 1, { at: 1, tie: 'DN-11' }).next).toBeUndefined();
  });

  it('computes the offset of the last allowed page size', () => {
    expect(pageRequest({ PageNo: 4, PageSize: 1000 })).toEqual({ pageNo: 4, pageSize: 1000, offset: 3000, limit: 1000 });
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
