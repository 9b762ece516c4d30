import { DEFAULT_PAGE_SIZE, type Cursors, type PageQuery } from '@rm/contracts';
import { listPosition, type IndexedFilter, type Resource, type ResourceCollection, type Scope } from '@rm/store';
import type { CursorCodec } from '../cursor.js';
import { isStringKey, paginate } from '../paging.js';

/** A filtered list: the filter the store applies, and the query parameters it came from, which its cursors are bound to. */
export interface ListFilter {
  where: IndexedFilter;
  parameters: Record<string, string | undefined>;
}

/**
 * One page of a list of stored resources, in list order (the store's listPosition: the hash of the key,
 * then the key), for the `cursor` and `limit` of a query. Its
 * cursors name positions in this one list (`listName` of the scope's tenant, and of its parent for
 * sub-resources, with its filter's parameters), so that another tenant's, list's or filter's cursor is refused.
 */
export function pageOfResources<Body>(
  resources: ResourceCollection<Body>,
  scope: Scope,
  listName: string,
  query: PageQuery,
  codec: CursorCodec,
  filter?: ListFilter,
): Promise<{ items: Resource<Body>[]; cursors: Cursors }> {
  const filtered = filter === undefined ? [] : [JSON.stringify(Object.entries(filter.parameters).filter(([, value]) => value !== undefined))];
  return paginate({
    cursor: query.cursor,
    limit: query.limit ?? DEFAULT_PAGE_SIZE,
    codec,
    key: (resource: Resource<Body>) => listPosition(resource.key),
    isKey: isStringKey,
    scope: [scope.tenant, listName, ...(scope.parent === undefined ? [] : [scope.parent]), ...filtered].join(':'),
    fetch: (read) => resources.list(scope, { ...read, ...(filter === undefined ? {} : { where: filter.where }) }),
  });
}
