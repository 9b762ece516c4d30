import { jsonRequest, send, type RawResponse } from './http.ts';
import type { StatusTally } from './report.ts';
import { BASE_PATH, type SuiteStack, type SuiteTenant } from './suite-stack.ts';

/** Calls of one tenant's client through the gateway; paths are under the API base. */
export interface ApiClient {
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<RawResponse>;
}

export function apiClient(suite: SuiteStack, tenant: SuiteTenant): ApiClient {
  return {
    async call(method, path, body, headers) {
      const token = await suite.token(tenant);
      const response = await send(suite.stack.gateway, jsonRequest(method, `${BASE_PATH}${path}`, token, body, headers));
      if (response === undefined) throw new Error(`${method} ${path}: the connection closed without an answer`);
      return response;
    },
  };
}

/** The same calls, each answer's status counted in `tally`. */
export function talliedClient(api: ApiClient, tally: StatusTally): ApiClient {
  return {
    async call(method, path, body, headers) {
      const response = await api.call(method, path, body, headers);
      tally.record(response.status);
      return response;
    },
  };
}

/** The id at the end of a Location header. */
export function idFromLocation(response: RawResponse): string {
  return new URL(response.headers.location ?? '/', 'http://x').pathname.split('/').at(-1) ?? '';
}

/** Polls `attempt` every 250 ms until it returns true, for at most `timeoutMs`. */
export async function eventually(attempt: () => Promise<boolean>, timeoutMs = 30_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await attempt()) return true;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return false;
}
