import { request as httpRequest } from 'node:http';
import { MongoClient } from 'mongodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { connectTestMongo, createTestIssuer, startSilentServer, testServers, unservedLookups, waitFor } from '@rm/testkit';
import { AUDIENCE, BASE, ISSUER, signIn, signWithGatewayKey, startGateway, type GatewayHarness } from '../helpers.js';
import type { Stack } from '../stack.js';

const EMPLOYEE = {
  name: { first_name: 'Ada', last_name: 'Peeters' },
  start_location: { name: 'Depot Gent', address_line: 'Dok Noord 1', city: 'Gent', zip_code: '9000', country_code: 'BE' },
};

let gateway: GatewayHarness;
let tokenA: string;
let tokenB: string;

function call(path: string, token: string | undefined, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (token !== undefined) headers.set('Authorization', `Bearer ${token}`);
  return gateway.fetch(`${BASE}${path}`, { ...init, headers });
}

function validTimes(): { iat: number; exp: number } {
  const now = Math.floor(Date.now() / 1000);
  return { iat: now, exp: now + 300 };
}

/**
 * The gateway in front of its owners: routing, tokens, tenants and limits. Its last test stops the
 * employees service: describe it after every other user of the stack.
 */
export function describeUnifiedApi(stack: () => Stack): void {
  describe('the unified API', () => {
    beforeAll(async () => {
      gateway = stack().gateway;
      ({ token: tokenA } = await signIn(gateway));
      ({ token: tokenB } = await signIn(gateway));
    });

    it('is ready when its keys are loaded and it watches the blocks', async () => {
      const response = await gateway.fetch('/readyz');
      expect(response.status).toBe(200);
      expect(((await response.json()) as { checks: Record<string, string> }).checks).toMatchObject({ signingKeys: 'ok', blockedIps: 'ok', mongodb: 'ok', nats: 'ok' });
    });

    it('answers /ping with pong to an authenticated caller', async () => {
      const response = await call('/ping', tokenA);
      expect(response.status).toBe(200);
      expect(await response.text()).toBe('pong');
    });

    it('forwards a write to its owner, which builds the Location the caller reached, and reads it back', async () => {
      const put = await call('/employee/e-1', tokenA, {
        method: 'PUT',
        headers: { 'Content-Type': 'application/json', 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'api.example.com', 'X-Request-Id': 'req-42' },
        body: JSON.stringify(EMPLOYEE),
      });
      expect(put.status).toBe(201);
      expect(put.headers.get('location')).toBe(`https://api.example.com${BASE}/employee/e-1`);
      expect(put.headers.get('etag')).toBe('W/"1"');
      expect(put.headers.get('x-request-id')).toBe('req-42');
      const get = await call('/employee/e-1', tokenA);
      expect(get.status).toBe(200);
      expect(((await get.json()) as { name: unknown }).name).toEqual(EMPLOYEE.name);
    });

    it('routes /transport-resource… to its owner, custom_data with any keys and unavailabilities included', async () => {
      const body = '{"type":"TRUCK","start_location":{"name":"Depot Gent","city":"Gent","zip_code":"9000","country_code":"BE"},"custom_data":{"$where":"x","a.b":1,"__proto__":{"admin":true}}}';
      const put = await call('/transport-resource/tr-1', tokenA, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body });
      expect(put.status).toBe(201);
      const get = await call('/transport-resource/tr-1', tokenA);
      expect(await get.text()).toContain('"custom_data":{"$where":"x","a.b":1,"__proto__":{"admin":true}}');
      const created = await call('/transport-resource/tr-1/unavailability', tokenA, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ from: '2031-01-01T08:00:00Z', to: '2031-01-01T12:00:00Z' }),
      });
      expect(created.status).toBe(201);
      expect(created.headers.get('location')).toMatch(new RegExp(`${BASE}/transport-resource/tr-1/unavailability/[0-9a-f-]{36}$`));
      expect((await call('/transport-resource/tr-1', tokenB)).status).toBe(404);
    });

    it('keeps a resource combination from the owners\' events, readable through the gateway by its tenant only', async () => {
      const json = { 'Content-Type': 'application/json' };
      const put = (path: string, body: unknown) => call(path, tokenA, { method: 'PUT', headers: json, body: JSON.stringify(body) });
      // a location of their own: the tenant's other transport resources are elsewhere
      const start_location = { ...EMPLOYEE.start_location, name: 'Depot Matched' };
      expect((await put('/employee/ada-matched', { ...EMPLOYEE, start_location })).status).toBe(201);
      expect((await put('/transport-resource/truck-matched', { type: 'TRUCK', start_location })).status).toBe(201);
      const shift = { earliest_start: '2030-01-07T08:00:00Z', max_duration: 'PT8H' };
      const created = await call('/employee/ada-matched/availability', tokenA, { method: 'POST', headers: json, body: JSON.stringify(shift) });
      expect(created.status).toBe(201);
      const { id } = (await created.json()) as { id: string };
      let combination: Response | undefined;
      await waitFor('the combination', async () => (combination = await call(`/resource-combination/${id}`, tokenA)).status === 200);
      expect(await combination!.json()).toMatchObject({ id, employee_id: 'ada-matched', transport_resource_ids: ['truck-matched'] });
      expect((await call(`/available-employee/${id}`, tokenA)).status).toBe(200);
      expect((await call(`/resource-combination/${id}`, tokenB)).status).toBe(404);
    });

    it('passes the owner\'s problems through unchanged', async () => {
      const response = await call('/employee/e-2', tokenA, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: '{"name":' });
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const missing = await call('/employee/does-not-exist', tokenA);
      expect(missing.status).toBe(404);
    });

    it("never lets tenant A's token reach tenant B's data", async () => {
      const put = await call('/employee/b-only', tokenB, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(EMPLOYEE) });
      expect(put.status).toBe(201);
      const read = await call('/employee/b-only', tokenA);
      expect(read.status).toBe(404);
      const remove = await call('/employee/b-only', tokenA, { method: 'DELETE' });
      expect(remove.status).toBe(404);
      const list = (await (await call('/employee', tokenA)).json()) as { employees: { employee_id?: string; id?: string }[] };
      expect(JSON.stringify(list)).not.toContain('b-only');
      expect((await call('/employee/b-only', tokenB)).status).toBe(200);
    });

    it('answers a call without a token with 401 and a bare Bearer challenge', async () => {
      const response = await call('/employee', undefined);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer realm="[^"]*"$/);
    });

    it.each([
      ['an expired token', async () => signWithGatewayKey(gateway, { iat: Math.floor(Date.now() / 1000) - 600, exp: Math.floor(Date.now() / 1000) - 300 })],
      ['a token signed by an unknown key', async () => (await createTestIssuer({ issuer: ISSUER, audience: AUDIENCE })).mint({ tenant: 'acme' })],
      ['an unsigned token (alg none)', async () => (await createTestIssuer({ issuer: ISSUER, audience: AUDIENCE })).mint({ tenant: 'acme', algorithm: 'none' })],
      ['a token of another audience, signed by the gateway', async () => signWithGatewayKey(gateway, validTimes(), { audience: 'another-api' })],
      ['a token of another issuer', async () => (await createTestIssuer({ issuer: 'https://elsewhere.test', audience: AUDIENCE })).mint({ tenant: 'acme' })],
    ])('answers %s with 401 invalid_token', async (_case, makeToken) => {
      const response = await call('/employee', await makeToken());
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    });

    it('refuses a body larger than the limit before forwarding it, as problem+json', async () => {
      const response = await call('/employee/big', tokenA, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: `{"x":"${'a'.repeat(1_100_000)}"}` });
      expect(response.status).toBe(413);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    });

    // left to the owner, its refusal closed the connection under the gateway's feet: now and then a 500 (EPIPE)
    it('refuses a chunked body larger than the limit (no Content-Length to judge) with 413 problem+json, and closes', async () => {
      type Answer = { status: number; contentType: string; connection: string };
      const { status, contentType, connection } = await new Promise<Answer>((resolve, reject) => {
        const request = httpRequest(`${gateway.origin}${BASE}/employee/big-chunked`, {
          method: 'PUT',
          headers: { Authorization: `Bearer ${tokenA}`, 'Content-Type': 'application/json', 'X-Forwarded-For': '10.9.9.8' },
        });
        request.on('response', (response) => {
          response.resume();
          const { statusCode = 0, headers } = response;
          resolve({ status: statusCode, contentType: String(headers['content-type']), connection: String(headers.connection) });
        });
        request.on('error', reject);
        request.write('{"x":"');
        for (let chunk = 0; chunk < 22; chunk += 1) request.write('a'.repeat(50_000));
        request.end('"}');
      });
      expect(status).toBe(413);
      expect(contentType).toMatch(/^application\/problem\+json/);
      // the rest of the body is not read: the connection cannot carry another request
      expect(connection).toBe('close');
    });

    it('forwards a body sent with Expect: 100-continue', async () => {
      const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const request = httpRequest(`${gateway.origin}${BASE}/employee/e-continue`, {
          method: 'PUT',
          headers: { Authorization: `Bearer ${tokenA}`, 'Content-Type': 'application/json', Expect: '100-continue', 'X-Forwarded-For': '10.9.9.9' },
        });
        request.on('continue', () => request.end(JSON.stringify(EMPLOYEE)));
        request.on('response', (response) => {
          let text = '';
          response.on('data', (chunk) => (text += chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
        });
        request.on('error', reject);
      });
      expect(status, body).toBe(201);
    });

    it('answers a header flood with 431 problem+json', async () => {
      const flood = Object.fromEntries(Array.from({ length: 40 }, (_, index) => [`x-flood-${index}`, 'x'.repeat(1_000)]));
      const response = await call('/employee', tokenA, { headers: flood });
      expect(response.status).toBe(431);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    });

    it('grants nothing past the gateway: the owner verifies the token itself', async () => {
      const foreign = await (await createTestIssuer({ issuer: ISSUER, audience: AUDIENCE })).mint({ tenant: 'acme' });
      const employees = `http://127.0.0.1:${stack().owners.employees!.config.PORT}${BASE}/employee`;
      const direct = await fetch(employees, { headers: { Authorization: `Bearer ${foreign}` } });
      expect(direct.status).toBe(401);
      const withGatewayToken = await fetch(employees, { headers: { Authorization: `Bearer ${tokenA}` } });
      expect(withGatewayToken.status).toBe(200);
    });

    it('answers a path nobody owns with 404 problem+json', async () => {
      const response = await call('/no-such-resource', tokenA);
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    });

    it('never routes the services\' internal paths: a home-base claim cannot be made through it', async () => {
      const body = JSON.stringify({ referrer: { entity: 'employee', id: 'e-1' }, references: [{ field: 'home_base.business_id', business_id: 'hb-1' }] });
      const response = await call('/internal/home-base-claims', tokenA, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
      expect(response.status).toBe(404);
    });

    it('answers 504 when the owner does not answer in time, and leaves its paths out of the OpenAPI document', async () => {
      const silent = await startSilentServer();
      // a second replica of the gateway (same keys), whose deployments service answers nothing
      const replica = await startGateway({
        MONGO_DB: gateway.variables.MONGO_DB!,
        UPSTREAM_DEPLOYMENTS_URL: silent.origin,
        UPSTREAM_TIMEOUT_MS: '1500',
      });
      try {
        const response = await replica.fetch(`${BASE}/deployment`, { headers: { Authorization: `Bearer ${tokenA}` } });
        expect(response.status).toBe(504);
        expect(((await response.json()) as { detail: string }).detail).toContain('deployments');
        const document = (await (await replica.fetch(`${BASE}/openapi.json`)).json()) as { paths: Record<string, unknown> };
        expect(Object.keys(document.paths).some((path) => path.startsWith('/deployment'))).toBe(false);
      } finally {
        await replica.stop();
        await silent.close();
      }
    });

    it("serves every lookup that its services' declared indexes name from an index", async () => {
      const declared = new MongoClient(testServers().mongoUrl);
      const scratch = await connectTestMongo('index_probe');
      try {
        const unserved = [];
        for (const database of stack().databases) unserved.push(...(await unservedLookups(declared.db(database), scratch.db)));
        expect(unserved).toEqual([]);
      } finally {
        await scratch.close();
        await declared.close();
      }
    });

    it('answers 503 while the owner is down', async () => {
      await stack().owners.employees?.stop();
      delete stack().owners.employees;
      const response = await call('/employee/e-1', tokenA);
      expect(response.status).toBe(503);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(((await response.json()) as { detail: string }).detail).toContain('employees');
    });
  });
}
