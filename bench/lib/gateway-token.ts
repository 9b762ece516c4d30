import type { Pool } from 'undici';
import type { ThrowawayTenant } from '../../scripts/stack.ts';

/** A token of the tenant's client from the gateway's token endpoint (client credentials, HTTP Basic). */
export async function issueToken(pool: Pool, { clientId, secret }: ThrowawayTenant): Promise<string> {
  const { statusCode, body } = await pool.request({
    method: 'POST',
    path: '/oauth2/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}` },
    body: 'grant_type=client_credentials',
  });
  const answer = (await body.json()) as { access_token?: string };
  if (statusCode !== 200 || answer.access_token === undefined) throw new Error(`token request answered ${statusCode}`);
  return answer.access_token;
}
