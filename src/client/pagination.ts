/**
 * Cursor pages that are also async iterators over every item of every following page.
 *
 * `list()` returns a {@link PagePromise}: `await` it for one page, or `for await` it directly for
 * all items. Pages are fetched lazily, one at a time, as iteration reaches them.
 */
import { ApiError } from '../errors.js';

export type FetchPage<T> = (cursor: string | undefined) => Promise<Page<T>>;

export class Page<T> implements AsyncIterable<T> {
  /** Items of this page, in the order the service sent them. */
  readonly data: T[];
  /** Cursor of the next page, or null on the last one. */
  readonly nextCursor: string | null;
  private readonly cursor: string | undefined;
  private readonly fetchPage: FetchPage<T>;

  constructor(data: T[], nextCursor: string | null, cursor: string | undefined, fetchPage: FetchPage<T>) {
    this.data = data;
    this.nextCursor = nextCursor;
    this.cursor = cursor;
    this.fetchPage = fetchPage;
  }

  hasNextPage(): boolean {
    return this.nextCursor !== null && this.nextCursor !== '';
  }

  /** Fetches the next page. A cursor that does not advance is an error, not an endless loop. */
  async getNextPage(): Promise<Page<T>> {
    if (!this.hasNextPage()) throw new ApiError('There is no next page (next_cursor is null)');
    if (this.nextCursor === this.cursor) {
      throw new ApiError(`The service returned the same cursor again (${this.nextCursor}); stopping`);
    }
    return this.fetchPage(this.nextCursor ?? undefined);
  }

  /**
   * This page, then every following page. A cursor seen before (A → B → A) is an error: a
   * service bug must not turn `for await` into an endless loop.
   */
  async *iterPages(): AsyncGenerator<Page<T>, void, undefined> {
    let page: Page<T> = this;
    const seen = new Set<string>();
    if (this.cursor !== undefined) seen.add(this.cursor);
    yield page;
    while (page.hasNextPage()) {
      const cursor = page.nextCursor!;
      if (seen.has(cursor)) {
        throw new ApiError(`The service returned the same cursor (${cursor}) again while listing; stopping`);
      }
      seen.add(cursor);
      page = await page.getNextPage();
      yield page;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.iterPages()) yield* page.data;
  }
}

/** A Promise of the first page that can also be iterated over all items directly. */
export class PagePromise<T> implements PromiseLike<Page<T>>, AsyncIterable<T> {
  private readonly page: Promise<Page<T>>;

  constructor(page: Promise<Page<T>>) {
    this.page = page;
    // The caller may only iterate; keep an unobserved rejection from being reported twice.
    this.page.catch(() => undefined);
  }

  then<A = Page<T>, B = never>(
    onFulfilled?: ((page: Page<T>) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.page.then(onFulfilled, onRejected);
  }

  catch<B = never>(onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<Page<T> | B> {
    return this.page.catch(onRejected);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    const page = await this.page;
    yield* page;
  }
}
