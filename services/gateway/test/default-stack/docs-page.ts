import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { gettingStartedGuide } from '../../src/docs/guide.js';
import { BASE, createClient, TEST_LIMITS, tokenFor, type GatewayHarness } from '../helpers.js';
import type { Stack } from '../stack.js';

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it), driven over CDP: no browser download. */
const CHROMIUM = process.env.RM_CHROMIUM_PATH ?? '/usr/bin/chromium';
const HAS_CHROMIUM = existsSync(CHROMIUM);
/** In CI a missing Chromium fails the browser tests; on a developer's machine they are skipped, saying why. */
const SKIP_BROWSER = !HAS_CHROMIUM && process.env.CI !== 'true';
if (SKIP_BROWSER) console.warn(`default-stack/docs-page.ts: the browser tests are skipped: there is no Chromium at ${CHROMIUM} (apt-get install chromium, or set RM_CHROMIUM_PATH)`);

const GUIDE_TOPICS = ['Token', 'First calls', 'Paging', 'Errors and violations', 'ETag and If-Match', 'Prefer', 'Idempotency-Key', 'Rate limits', 'Change feed', 'Webhooks', 'Bulk load', 'Licence'];
const STATUSES = ['400', '401', '404', '409', '412', '413', '415', '422', '429', '503', '504'];

/** The tags of the served document that have operations, in the document's order. */
async function documentTags(gateway: GatewayHarness): Promise<string[]> {
  const document = (await (await gateway.fetch(`${BASE}/openapi.json`)).json()) as {
    tags: { name: string }[];
    paths: Record<string, Record<string, { tags?: string[] }>>;
  };
  const used = new Set(Object.values(document.paths).flatMap((item) => Object.values(item).flatMap((operation) => operation.tags ?? [])));
  return document.tags.map(({ name }) => name).filter((name) => used.has(name));
}

/** The docs page (the getting-started guide and swagger-ui), as served and in Chromium. */
export function describeDocsPage(stack: () => Stack): void {
  describe('the docs page', () => {
    let gateway: GatewayHarness;
    let client: { clientId: string; secret: string };

    beforeAll(async () => {
      gateway = stack().gateway;
      client = await createClient(gateway.registry);
    });

    describe('as served', () => {
      it('serves the page and its assets itself, so that it works offline', async () => {
        const page = await gateway.fetch('/docs');
        expect(page.status).toBe(200);
        expect(page.headers.get('cache-control')).toBe('private, no-cache');
        const html = await page.text();
        expect(html).toContain('src="/docs/swagger-ui-bundle.js"');
        expect(html).toContain(`"${BASE}/openapi.json"`);
        // no script, style sheet or image from elsewhere
        expect(html).not.toMatch(/<(?:script|link|img)\b[^>]*\b(?:src|href)="(?:[a-z]+:)?\/\//);
        // and none inline, which its policy would not run: the board's client secret shares this origin
        expect(page.headers.get('content-security-policy')).toContain("script-src 'self';");
        expect(html).not.toMatch(/<script>/);
        expect(html).toContain('src="/docs/docs-init.js"');
        expect(await (await gateway.fetch('/docs/docs-init.js')).text()).toContain('SwaggerUIBundle(');
        const bundle = await gateway.fetch('/docs/swagger-ui-bundle.js');
        expect(bundle.status).toBe(200);
        expect(bundle.headers.get('content-type')).toMatch(/javascript/);
        expect(bundle.headers.get('cache-control')).toBe('public, max-age=86400');
        expect((await bundle.text()).length).toBeGreaterThan(100_000);
        expect((await gateway.fetch('/docs/swagger-ui.css')).status).toBe(200);
        expect((await gateway.fetch('/docs/nothing.js')).status).toBe(404);
      });

      it("writes the guide's examples for the origin and prefix the caller reached, escaping what it was sent", async () => {
        const headers = { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'rm.haulage.test', 'X-Forwarded-Prefix': '/rm' };
        const html = await (await gateway.fetch('/docs', { headers })).text();
        expect(html).toContain("'https://rm.haulage.test/rm/oauth2/token'");
        expect(html).toContain("'https://rm.haulage.test/rm/resource-management/v1/ping'");
        expect(html).toContain('src="/rm/docs/swagger-ui-bundle.js"');
        expect(html).toContain('"/rm/resource-management/v1/openapi.json"');
        // the limits as this gateway is configured (helpers.ts TEST_LIMITS), not the defaults
        expect(html).toMatch(new RegExp(`at most ${TEST_LIMITS.TOKEN_RATE_LIMIT} requests a second from one IP address,\\s+and\\s+${TEST_LIMITS.TOKEN_RATE_LIMIT_PER_CLIENT} for one client id`));

        // the gateway refuses such a host before any route; the guide escapes it all the same
        const hostileHost = 'rm.haulage.test"><script>alert(1)</script>';
        expect((await gateway.fetch('/docs', { headers: { 'X-Forwarded-Host': hostileHost } })).status).toBe(400);
        const guide = gettingStartedGuide({ origin: `https://${hostileHost}`, basePath: BASE, tokenPath: '/oauth2/token', bodyLimit: 1_048_576, tokenRequestsPerIp: 50, tokenRequestsPerClient: 5 }).text;
        expect(guide).not.toContain('<script>');
        expect(guide).toContain('https://rm.haulage.test&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;/oauth2/token');
      });

      it('gives examples that work as written: the first employee, If-Match, Prefer, a create under an Idempotency-Key', async () => {
        const html = await (await gateway.fetch('/docs')).text();
        const employee = /export EMPLOYEE='([^']+)'/.exec(html)?.[1];
        const moved = /export MOVED='([^']+)'/.exec(html)?.[1];
        const availability = /-d '(\{"earliest_start"[^']+)'/.exec(html)?.[1];
        const idempotencyKey = /Idempotency-Key: ([0-9a-f-]{36})/.exec(html)?.[1];
        expect([employee, moved, availability, idempotencyKey]).not.toContain(undefined);
        const token = await tokenFor(gateway, client.clientId, client.secret);
        const call = (method: string, path: string, body: string, extra: Record<string, string> = {}) =>
          gateway.fetch(`${BASE}${path}`, { method, body, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...extra } });

        const put = await call('PUT', '/employee/emp-1042', employee!);
        expect(put.status).toBe(201);
        expect(put.headers.get('etag')).toBe('W/"1"');
        const move = () => call('PUT', '/employee/emp-1042', moved!, { 'If-Match': 'W/"1"' });
        const first = await move();
        expect([first.status, first.headers.get('etag')]).toEqual([200, 'W/"2"']);
        expect((await move()).status).toBe(412);
        const minimal = await call('PUT', '/employee/emp-1042', employee!, { Prefer: 'return=minimal' });
        expect([minimal.status, minimal.headers.get('preference-applied')]).toEqual([204, 'return=minimal']);
        const create = () => call('POST', '/employee/emp-1042/availability', availability!, { 'Idempotency-Key': idempotencyKey! });
        const created = await create();
        expect(created.status).toBe(201);
        const replayed = await create();
        expect([replayed.status, replayed.headers.get('idempotent-replayed'), replayed.headers.get('location')]).toEqual([201, 'true', created.headers.get('location')]);
      });
    });

    describe.skipIf(SKIP_BROWSER)('in Chromium', () => {
      let browser: Browser;
      let page: Page;

      beforeAll(async () => {
        if (!HAS_CHROMIUM) return;
        browser = await chromium.launch({ executablePath: CHROMIUM });
        page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
        await page.goto(`${gateway.origin}/docs`);
        await page.locator('.opblock-tag-section').first().waitFor();
      });

      afterAll(async () => {
        await browser?.close();
      });

      // in CI each browser test fails, not skips, saying why (an error in beforeAll would skip them)
      beforeEach(() => {
        if (!HAS_CHROMIUM) throw new Error(`There is no Chromium at ${CHROMIUM}: CI must install it (.ci/run does, with apt-get install chromium)`);
      });

      it('shows the getting-started guide above the operations, with the licence the document links to', async () => {
        await expect.poll(() => page.locator('#guide h2').allTextContents()).toEqual(GUIDE_TOPICS);
        expect(await page.locator('#guide .rm-table tbody td:first-child').allTextContents()).toEqual(STATUSES);
        const guide = await page.locator('#guide').boundingBox();
        const operations = await page.locator('.opblock-tag-section').first().boundingBox();
        expect(guide!.y + guide!.height).toBeLessThanOrEqual(operations!.y);
        expect(await page.locator('#guide').textContent()).toContain(`'${gateway.origin}/oauth2/token'`);
        expect(await page.locator('#licence').textContent()).toMatch(/proprietary[\s\S]*integrations of licensed customers/);
        // the document's licence URL opens the page there
        const document = (await (await gateway.fetch(`${BASE}/openapi.json`)).json()) as { info: { license: { url: string } } };
        expect(document.info.license.url).toBe(`${gateway.origin}/docs#licence`);
      });

      it("groups the operations by the document's tags in the document's order, with their operationIds and a filter", async () => {
        expect(await page.locator('.opblock-tag-section h3.opblock-tag').evaluateAll((tags) => tags.map((tag) => tag.getAttribute('data-tag')))).toEqual(await documentTags(gateway));
        expect(await page.locator('#operations-Health-ping .opblock-summary-operation-id').textContent()).toBe('ping');
        await expect.poll(() => page.locator('.filter-container input').count()).toBe(1);
      });

      it('authorizes with a client id and secret at the token endpoint, then tries /ping and the employee list', async () => {
        await page.locator('.auth-wrapper .btn.authorize').click();
        const dialog = page.locator('.modal-ux');
        await dialog.locator('input[data-name="clientId"]').fill(client.clientId);
        await dialog.locator('input[data-name="clientSecret"]').fill(client.secret);
        await dialog.getByRole('button', { name: 'Apply given OAuth2 credentials' }).click();
        await dialog.getByRole('button', { name: 'Remove authorization' }).waitFor();
        expect(await dialog.locator('.errors').count()).toBe(0);
        await dialog.locator('.btn-done').click();

        for (const [operation, expected] of [
          ['#operations-Health-ping', 'pong'],
          ['#operations-Employee-getPagedEmployees', '"employees"'],
        ] as const) {
          const block = page.locator(operation);
          await block.locator('.opblock-summary-control').click();
          await block.locator('.try-out__btn').click();
          await block.locator('.execute').click();
          const response = block.locator('.live-responses-table .response');
          await response.waitFor();
          expect(await response.locator('.response-col_status').textContent()).toBe('200');
          expect(await response.locator('.response-col_description pre').first().textContent()).toContain(expected);
        }

        // the token stays for a reload, the client secret does not
        const stored = await page.evaluate(() => localStorage.getItem('authorized'));
        expect(stored).toContain('access_token');
        expect(stored).not.toContain(client.secret);
      });

      // two pages drawing the whole document: on a loaded 2-core machine this took over 30 s twice
      it('opens at the licence for /docs#licence and at an operation for its deep link', { timeout: 90_000 }, async () => {
        const other = await browser.newPage({ viewport: { width: 1280, height: 900 } });
        try {
          await other.goto(`${gateway.origin}/docs#licence`);
          await other.locator('.opblock-tag-section').first().waitFor();
          // still in view once swagger-ui has drawn the operations below, and the hash not taken for a deep link
          const licence = await other.locator('#licence').boundingBox();
          expect(licence!.y).toBeGreaterThanOrEqual(0);
          expect(licence!.y).toBeLessThan(900);
          expect(new URL(other.url()).hash).toBe('#licence');
        } finally {
          await other.close();
        }
        // a page of its own: from /docs#licence, the browser would only change the hash, and swagger-ui reads it once
        const linked = await browser.newPage();
        try {
          await linked.goto(`${gateway.origin}/docs#/Employee/getPagedEmployees`);
          await linked.locator('#operations-Employee-getPagedEmployees .opblock-body').waitFor();
        } finally {
          await linked.close();
        }
      });
    });
  });
}
