import type { OpenApiOperation, OpenApiParameter, OpenApiRef, OpenApiResponse } from '@rm/service-kit';
import { withConventions } from './conventions.js';
import { OPERATION_EXAMPLES, type OperationExamples } from './examples.js';
import { OPERATIONS } from './operations.js';
import { withProblemResponses } from './problems.js';

/**
 * An operation as its owner describes it (parameters and schemas), with what the document adds:
 * its id, tag and words, the conventions' headers, its examples and every error answer. One the
 * catalogue does not know is left as its owner gave it (the document test names it).
 */
export function describedOperation(path: string, method: string, operation: OpenApiOperation): OpenApiOperation {
  const conventional = withConventions(method, operation);
  const text = OPERATIONS[`${method.toUpperCase()} ${path}`];
  if (text === undefined) return conventional;
  const { operationId, tag, summary, description, experimental } = text;
  const examples = OPERATION_EXAMPLES[operationId] ?? {};
  const { parameters, requestBody, responses } = withExamples(conventional, examples);
  return {
    operationId,
    tags: [tag],
    summary,
    description,
    ...(experimental === true ? { 'x-experimental': true } : {}),
    ...(parameters === undefined ? {} : { parameters }),
    ...(requestBody === undefined ? {} : { requestBody }),
    responses: withProblemResponses(responses, requestBody !== undefined),
  };
}

function withExamples(operation: OpenApiOperation, examples: OperationExamples): OpenApiOperation {
  const parameters = operation.parameters?.map((parameter): OpenApiParameter | OpenApiRef => {
    if ('$ref' in parameter) return parameter;
    const example = { path: examples.parameters, query: examples.query }[parameter.in as 'path' | 'query']?.[parameter.name];
    return example === undefined ? parameter : { ...parameter, example };
  });
  const requestBody = operation.requestBody === undefined ? undefined : { ...operation.requestBody, content: exemplified(operation.requestBody.content, examples.request) };
  const responses = Object.fromEntries(
    Object.entries(operation.responses).map(([status, response]): [string, OpenApiResponse | OpenApiRef] => {
      if ('$ref' in response || response.content === undefined) return [status, response];
      return [status, { ...response, content: exemplified(response.content, examples.responses?.[status as '200' | '201']) }];
    }),
  );
  return { ...operation, ...(parameters === undefined ? {} : { parameters }), ...(requestBody === undefined ? {} : { requestBody }), responses };
}

function exemplified(content: NonNullable<OpenApiResponse['content']>, example: unknown): NonNullable<OpenApiResponse['content']> {
  if (example === undefined) return content;
  return Object.fromEntries(Object.entries(content).map(([type, media]) => [type, { ...media, example }]));
}
