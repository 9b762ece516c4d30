import type { components } from './generated/api.js';

/** An RFC 9457 problem as the API answers it; a 400 names each broken rule in `violations`. */
export type Problem = components['schemas']['Problem'];

/**
 * An answer that is not a success, after the client's retries: its status, its problem (absent on a
 * 401, which has only `WWW-Authenticate`) and its headers.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly problem: Problem | undefined;
  readonly headers: Headers;

  constructor(status: number, problem: Problem | undefined, headers: Headers, context: string) {
    super(`${context}: ${status}${problem === undefined ? '' : ` ${problem.title}: ${problem.detail}`}`);
    this.name = 'ApiError';
    this.status = status;
    this.problem = problem;
    this.headers = headers;
  }

  /** The error a failed answer stands for; its body is read. */
  static async of(response: Response, context: string): Promise<ApiError> {
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return new ApiError(response.status, asProblem(body), response.headers, context);
  }
}

/** The body as a problem, when it is one (a title and a detail); else undefined. */
export function asProblem(body: unknown): Problem | undefined {
  const problem = body as Partial<Problem> | null | undefined;
  return typeof problem?.title === 'string' && typeof problem.detail === 'string' ? (problem as Problem) : undefined;
}
