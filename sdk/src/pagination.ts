/** One page of a cursor-paginated list. */
export interface Page<T> {
  data: T[];
  /** Cursor of the next page (from `X-Next-Cursor` or the `Link: <…>; rel="next"` header); null on the last page. */
  nextCursor: string | null;
  hasNextPage(): boolean;
  /** Fetches the following page; rejects when there is none. */
  getNextPage(): Promise<Page<T>>;
}

/**
 * Fetches one page. Lists paginated by headers return `{data, response}`; lists that carry their
 * cursor in the body return `nextCursor` (string, or null on the last page), which wins.
 */
export type PageFetcher<T> = (
  cursor: string | undefined,
) => Promise<{ data: T[]; response: Response; nextCursor?: string | null } | { data: T[]; nextCursor: string | null }>;

/** The `rel="next"` target of an RFC 8288 Link header, or null. */
export function nextLink(header: string | null): string | null {
  if (!header) return null;
  for (const part of header.split(/,(?=\s*<)/)) {
    const m = /^\s*<([^>]*)>\s*;(.*)$/.exec(part);
    if (m && /(^|;)\s*rel\s*=\s*"?([^";]*\s)?next(\s[^";]*)?"?\s*(;|$)/i.test(m[2] ?? '')) return m[1] ?? null;
  }
  return null;
}

/** The cursor of the next page: `X-Next-Cursor`, else the `cursor` query parameter of the Link rel=next URL. */
export function nextCursorOf(response: Response): string | null {
  const header = response.headers.get('x-next-cursor');
  if (header) return header;
  const link = nextLink(response.headers.get('link'));
  if (!link) return null;
  return new URL(link, 'http://placeholder').searchParams.get('cursor');
}

async function loadPage<T>(fetchPage: PageFetcher<T>, cursor: string | undefined): Promise<Page<T>> {
  const page = await fetchPage(cursor);
  const data = page.data;
  const next = page.nextCursor !== undefined ? page.nextCursor : nextCursorOf((page as { response: Response }).response);
  return {
    data,
    nextCursor: next,
    hasNextPage: () => next !== null,
    getNextPage: () => (next === null ? Promise.reject(new Error('No next page.')) : loadPage(fetchPage, next)),
  };
}

/**
 * The result of a paginated list call: `await` it for the first page, or iterate it with
 * `for await (const item of …)` to walk every page lazily, one request per page.
 */
export class PagePromise<T> implements PromiseLike<Page<T>>, AsyncIterable<T> {
  private first: Promise<Page<T>> | undefined;
  constructor(private readonly fetchPage: PageFetcher<T>) {}

  private firstPage(): Promise<Page<T>> {
    this.first ??= loadPage(this.fetchPage, undefined);
    return this.first;
  }

  // biome-ignore lint/suspicious/noThenProperty: a page list is deliberately awaitable (it resolves to the first page)
  then<A = Page<T>, B = never>(
    onfulfilled?: ((value: Page<T>) => A | PromiseLike<A>) | null,
    onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.firstPage().then(onfulfilled, onrejected);
  }

  catch<B = never>(onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<Page<T> | B> {
    return this.firstPage().catch(onrejected);
  }

  /** Every page in order. */
  async *pages(): AsyncGenerator<Page<T>> {
    let page = await this.firstPage();
    yield page;
    while (page.hasNextPage()) {
      page = await page.getNextPage();
      yield page;
    }
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for await (const page of this.pages()) yield* page.data;
  }

  /** Collects items across pages, stopping after `max` items when given. */
  async toArray(max = Infinity): Promise<T[]> {
    const out: T[] = [];
    for await (const item of this) {
      if (out.length >= max) break;
      out.push(item);
    }
    return out;
  }
}
