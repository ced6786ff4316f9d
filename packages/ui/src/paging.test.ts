import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect } from 'chai';

// Issue 21: how the admin UI's table moves between pages (pure rules of
// packages/ui/app/src/model/paging.ts, loaded by path: the app has its own tsconfig). Next and
// previous go by the answer's cursors, the last page by `last: true`, a chosen number by offset,
// and an answer without cursors (an older server) falls back to page numbers.
const PAGING = join(dirname(fileURLToPath(import.meta.url)), '..', 'app', 'src', 'model', 'paging.ts');

type PageMove = { after: string } | { before: string } | { last: true };
interface Answer {
  total: number;
  totalIsEstimate?: boolean;
  cursors?: { prev: string | null; next: string | null };
}
interface At {
  page: number;
  size: number;
  move?: PageMove;
}
interface Target {
  page: number;
  move?: PageMove;
}
interface Paging {
  pageCount(total: number, size: number): number;
  pagerTotal(at: At, answer: Answer, rowsShown: number): number;
  canGoNext(at: At, answer: Answer | undefined): boolean;
  canGoPrev(at: At, answer: Answer | undefined): boolean;
  firstPage(): Target;
  nextPage(at: At, answer: Answer | undefined): Target;
  prevPage(at: At, answer: Answer | undefined): Target;
  lastPage(at: At, answer: Answer | undefined): Target;
  pageNumbered(at: At, answer: Answer | undefined, to: number): Target;
  moveBody(move: PageMove | undefined): Record<string, unknown>;
  readMove(query: URLSearchParams): PageMove | undefined;
  writeMove(query: URLSearchParams, move: PageMove | undefined): void;
  isCursorRefusal(error: unknown): boolean;
  formatCount(n: number, locale: string): string;
}

async function setup() {
  const paging = (await import(pathToFileURL(PAGING).href)) as Paging;
  const estimate: Answer = { total: 5_000_000, totalIsEstimate: true, cursors: { prev: 'P7', next: 'N7' } };
  const exact: Answer = { total: 95, totalIsEstimate: false, cursors: { prev: 'P2', next: 'N2' } };
  const old: Answer = { total: 95 };
  return { paging, estimate, exact, old };
}

describe('admin UI paging (model/paging.ts)', () => {
  describe('next and previous', () => {
    it('go by the answer’s cursors, the page number one up or down', async () => {
      const { paging, estimate } = await setup();
      const at = { page: 7, size: 20, move: { after: 'N6' } };
      expect(paging.nextPage(at, estimate)).to.deep.equal({ page: 8, move: { after: 'N7' } });
      expect(paging.prevPage(at, estimate)).to.deep.equal({ page: 6, move: { before: 'P7' } });
    });

    it('back to page 1 is the plain first page, never a cursor', async () => {
      const { paging, exact } = await setup();
      expect(paging.prevPage({ page: 2, size: 20, move: { after: 'x' } }, exact)).to.deep.equal({ page: 1 });
      expect(paging.firstPage()).to.deep.equal({ page: 1 });
    });

    it('are refused where the cursors end (null), whatever the total says', async () => {
      const { paging } = await setup();
      const end: Answer = { total: 5_000_000, totalIsEstimate: true, cursors: { prev: 'P', next: null } };
      expect(paging.canGoNext({ page: 3, size: 20 }, end)).to.equal(false);
      expect(paging.canGoPrev({ page: 3, size: 20 }, end)).to.equal(true);
      const start: Answer = { total: 5_000_000, totalIsEstimate: true, cursors: { prev: null, next: 'N' } };
      expect(paging.canGoPrev({ page: 1, size: 20 }, start)).to.equal(false);
      expect(paging.canGoNext({ page: 1, size: 20 }, start)).to.equal(true);
      expect(paging.canGoNext({ page: 1, size: 20 }, undefined)).to.equal(false);
    });

    it('fall back to page numbers when the answer has no cursors (a server before issue 21)', async () => {
      const { paging, old } = await setup();
      expect(paging.nextPage({ page: 2, size: 20 }, old)).to.deep.equal({ page: 3 });
      expect(paging.prevPage({ page: 3, size: 20 }, old)).to.deep.equal({ page: 2 });
      expect(paging.canGoNext({ page: 4, size: 20 }, old)).to.equal(true);
      expect(paging.canGoNext({ page: 5, size: 20 }, old)).to.equal(false);
      expect(paging.canGoPrev({ page: 1, size: 20 }, old)).to.equal(false);
      expect(paging.lastPage({ page: 1, size: 20 }, old)).to.deep.equal({ page: 5 });
    });
  });

  describe('the last page', () => {
    it('is `last: true`, numbered from the total (an estimate gives an estimated number)', async () => {
      const { paging, estimate, exact } = await setup();
      expect(paging.lastPage({ page: 7, size: 20 }, estimate)).to.deep.equal({ page: 250_000, move: { last: true } });
      expect(paging.lastPage({ page: 1, size: 20 }, exact)).to.deep.equal({ page: 5, move: { last: true } });
    });
  });

  describe('pageNumbered (a page chosen by number)', () => {
    it('one step is the cursor move, page 1 plain, the exact last page `last`, any other the offset', async () => {
      const { paging, exact } = await setup();
      const at = { page: 2, size: 20 };
      expect(paging.pageNumbered(at, exact, 3)).to.deep.equal({ page: 3, move: { after: 'N2' } });
      expect(paging.pageNumbered({ page: 3, size: 20 }, exact, 2)).to.deep.equal({ page: 2, move: { before: 'P2' } });
      expect(paging.pageNumbered({ page: 3, size: 20 }, exact, 1)).to.deep.equal({ page: 1 });
      expect(paging.pageNumbered({ page: 1, size: 20 }, exact, 5)).to.deep.equal({ page: 5, move: { last: true } });
      expect(paging.pageNumbered({ page: 1, size: 20 }, exact, 4)).to.deep.equal({ page: 4 });
    });

    it('with an estimated total, a typed far number is its offset page, not `last`', async () => {
      const { paging, estimate } = await setup();
      expect(paging.pageNumbered({ page: 1, size: 20 }, estimate, 250_000)).to.deep.equal({ page: 250_000 });
      expect(paging.pageNumbered({ page: 1, size: 20 }, estimate, 40)).to.deep.equal({ page: 40 });
    });

    it('keeps the page on screen as it was reached, and bounds odd numbers', async () => {
      const { paging, exact } = await setup();
      expect(paging.pageNumbered({ page: 3, size: 20, move: { after: 'c' } }, exact, 3)).to.deep.equal({ page: 3, move: { after: 'c' } });
      expect(paging.pageNumbered({ page: 3, size: 20 }, exact, 0)).to.deep.equal({ page: 1 });
      expect(paging.pageNumbered({ page: 3, size: 20 }, exact, 9.7)).to.deep.equal({ page: 9 });
      expect(paging.pageNumbered({ page: 3, size: 20 }, exact, 5e9).page).to.equal(1_000_000);
    });
  });

  describe('pagerTotal (the total antd’s numbered pager is given)', () => {
    it('ends the pager on the page on screen when its `next` cursor is null', async () => {
      const { paging } = await setup();
      // 95 rows, but the rows after 60 were deleted meanwhile: page 3 is the last one.
      expect(paging.pagerTotal({ page: 3, size: 20 }, { total: 95, cursors: { prev: 'p', next: null } }, 20)).to.equal(60);
      // The real last page: the total as it is.
      expect(paging.pagerTotal({ page: 5, size: 20 }, { total: 95, cursors: { prev: 'p', next: null } }, 15)).to.equal(95);
      expect(paging.pagerTotal({ page: 2, size: 20 }, { total: 95, cursors: { prev: 'p', next: 'n' } }, 20)).to.equal(95);
      expect(paging.pagerTotal({ page: 2, size: 20 }, { total: 95 }, 20)).to.equal(95);
    });
  });

  describe('pageCount', () => {
    it('is at least 1 and rounds up', async () => {
      const { paging } = await setup();
      expect(paging.pageCount(0, 20)).to.equal(1);
      expect(paging.pageCount(20, 20)).to.equal(1);
      expect(paging.pageCount(21, 20)).to.equal(2);
      expect(paging.pageCount(10_000_000_000, 10)).to.equal(1_000_000);
    });
  });

  describe('the move in the request body and in the address', () => {
    it('is one of after / before / last, or nothing for an offset page', async () => {
      const { paging } = await setup();
      expect(paging.moveBody(undefined)).to.deep.equal({});
      expect(paging.moveBody({ after: 'a' })).to.deep.equal({ after: 'a' });
      expect(paging.moveBody({ before: 'b' })).to.deep.equal({ before: 'b' });
      expect(paging.moveBody({ last: true })).to.deep.equal({ last: true });
    });

    it('round-trips through the query string', async () => {
      const { paging } = await setup();
      for (const move of [{ after: 'eyJrIjpbMV19' }, { before: 'eyJrIjpbMl19' }, { last: true as const }]) {
        const q = new URLSearchParams('page=4');
        paging.writeMove(q, move);
        expect(paging.readMove(new URLSearchParams(q.toString()))).to.deep.equal(move);
      }
      expect(paging.readMove(new URLSearchParams('page=4'))).to.equal(undefined);
      expect(paging.readMove(new URLSearchParams('page=4&last=yes'))).to.equal(undefined);
    });
  });

  describe('isCursorRefusal', () => {
    it('is a 400 BAD_QUERY naming after, before or last, and nothing else', async () => {
      const { paging } = await setup();
      expect(paging.isCursorRefusal({ status: 400, code: 'BAD_QUERY', details: [{ path: 'after', message: 'bad cursor' }] })).to.equal(true);
      expect(paging.isCursorRefusal({ status: 400, code: 'BAD_QUERY', details: [{ path: 'before', message: 'bad cursor' }] })).to.equal(true);
      expect(paging.isCursorRefusal({ status: 400, code: 'BAD_QUERY', details: [{ path: 'sort[0].field', message: 'x' }] })).to.equal(false);
      expect(paging.isCursorRefusal({ status: 403, code: 'FORBIDDEN', details: [{ path: 'after', message: 'x' }] })).to.equal(false);
      expect(paging.isCursorRefusal(new Error('network'))).to.equal(false);
      expect(paging.isCursorRefusal(undefined)).to.equal(false);
    });
  });

  describe('formatCount', () => {
    it('writes a total in the user’s language', async () => {
      const { paging } = await setup();
      expect(paging.formatCount(5_000_000, 'en')).to.equal('5,000,000');
      expect(paging.formatCount(5_000_000, 'zh-CN')).to.equal('5,000,000');
      expect(paging.formatCount(5_000_000, 'de')).to.equal('5.000.000');
      // French groups with a narrow no-break space.
      expect(paging.formatCount(5_000_000, 'fr').replace(/\s/g, ' ')).to.equal('5 000 000');
    });
  });
});
