import type { OpenApiOperation, OpenApiRef, OpenApiResponse } from '@rm/service-kit';

/**
 * The HTTP conventions every owner follows (spec: Endpoints, Conventions) and no route schema
 * declares: `If-Match` and `Prefer` on writes, `ETag`, `Location` and `Preference-Applied` on their
 * answers, 204 for `Prefer: return=minimal` and for deletes, `ETag` on a single resource's read; and
 * the problems each kind of operation can answer.
 */
export const CONVENTION_COMPONENTS = {
  parameters: {
    IfMatch: {
      name: 'If-Match',
      in: 'header',
      required: false,
      description: 'Writes only if the current version is one of these weak ETags (or any version for `*`); 412 otherwise.',
      schema: { type: 'string' },
      example: 'W/"3"',
    },
    Prefer: {
      name: 'Prefer',
      in: 'header',
      required: false,
      description: '`return=minimal` for a 204 without a body, `return=representation` (the default) for the resource in the body.',
      schema: { type: 'string', enum: ['return=minimal', 'return=representation'] },
    },
  },
  headers: {
    ETag: { description: 'The version of the resource as a weak ETag, for `If-Match`.', schema: { type: 'string' }, example: 'W/"4"' },
    Location: {
      description: 'The URL of the resource written (for a create, it carries the generated id).',
      schema: { type: 'string', format: 'uri' },
    },
    PreferenceApplied: { description: 'The `Prefer` return preference honoured.', schema: { type: 'string' }, example: 'return=representation' },
  },
};

const header = (name: keyof typeof CONVENTION_COMPONENTS.headers) => ({ $ref: `#/components/headers/${name}` });
const WRITTEN_HEADERS = { ETag: header('ETag'), Location: header('Location'), 'Preference-Applied': header('PreferenceApplied') };

/** The operation as its owner's routes answer it under the conventions. */
export function withConventions(method: string, operation: OpenApiOperation): OpenApiOperation {
  const writes = method === 'put' || method === 'post';
  const conditional = (method === 'put' || method === 'delete') && '412' in operation.responses;
  const parameters = [
    ...(operation.parameters ?? []),
    ...(conditional ? [{ $ref: '#/components/parameters/IfMatch' }] : []),
    ...(writes ? [{ $ref: '#/components/parameters/Prefer' }] : []),
  ];
  const responses: Record<string, OpenApiResponse | OpenApiRef> = {};
  // a malformed If-Match is a 400 of any conditional write
  if (conditional) responses['400'] = { description: 'Bad Request' };
  for (const [status, response] of Object.entries(operation.responses)) {
    // the owners' shared lists of problems are wider than what a read can answer: it is never conditional, nor in conflict
    if (method === 'get' && (status === '409' || status === '412')) continue;
    const succeeded = status.startsWith('2');
    if (succeeded && writes) responses[status] = { ...response, headers: WRITTEN_HEADERS };
    else if (succeeded && method === 'get' && isSingleResource(response)) responses[status] = { ...response, headers: { ETag: header('ETag') } };
    else responses[status] = response;
  }
  if (writes) responses['204'] = { description: 'Written, as `Prefer: return=minimal` asked: no body.', headers: WRITTEN_HEADERS };
  if (method === 'delete') responses['204'] = { description: 'Deleted: no body.' };
  return { ...operation, ...(parameters.length > 0 ? { parameters } : {}), responses };
}

/** A JSON object that is not a page of a list (lists carry no ETag). */
function isSingleResource(response: OpenApiResponse | OpenApiRef): boolean {
  if ('$ref' in response) return false;
  const schema = response.content?.['application/json']?.schema as { type?: unknown; properties?: Record<string, unknown> } | undefined;
  return schema?.type === 'object' && schema.properties?.cursors === undefined;
}
