// Calls of one tenant's client through the gateway of a stack the bench started (scripts/stack.ts), on
// an undici pool of the bench's: the writes the benches time (the token: gateway-token.ts).
import type { Pool } from 'undici';
import { employeeFields } from './employee-fixture.ts';

export const API_BASE = '/resource-management/v1';

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/** `PUT /employee/{key}` of a new employee (`employeeFields(index)`); throws unless it answered 201. */
export async function putEmployee(pool: Pool, token: string, key: string, index: number): Promise<void> {
  const { statusCode, body } = await pool.request({
    method: 'PUT',
    path: `${API_BASE}/employee/${key}`,
    headers: { ...bearer(token), 'content-type': 'application/json' },
    body: JSON.stringify(employeeFields(index)),
  });
  await body.dump();
  if (statusCode !== 201) throw new Error(`PUT answered ${statusCode}`);
}
