import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, createClient, tokenFor, type GatewayHarness } from '../helpers.js';
import type { Stack } from '../stack.js';

/** Debian's Chromium, as the docs page's tests drive it (docs-page.ts). */
const CHROMIUM = process.env.RM_CHROMIUM_PATH ?? '/usr/bin/chromium';
const SKIP_BROWSER = !existsSync(CHROMIUM) && process.env.CI !== 'true';
if (SKIP_BROWSER) console.warn(`default-stack/board-page.ts: the browser tests are skipped: there is no Chromium at ${CHROMIUM}`);

/** A Monday, far from any other test's data; the board is opened on it, in UTC. */
const DAY = '2030-01-07';
const at = (hour: number) => `${DAY}T${String(hour).padStart(2, '0')}:00:00Z`;
/** How long the page may take to show what it was asked (a loaded machine), and the engine to match. */
const WAIT = { timeout: 15_000 };
const ENGINE_WAIT = { timeout: 30_000 };
const DEPOT = { name: 'Depot Board', geo_point: { latitude: 51.05, longitude: 3.72 } };

/** The planner's board (@rm/board) as the gateway serves it, and in Chromium against the whole stack. */
export function describeBoardPage(stack: () => Stack): void {
  describe("the planner's board", () => {
    let gateway: GatewayHarness;
    let client: { clientId: string; secret: string };
    let token: string;

    /** A write through the gateway as the tenant's integrator would make it; its JSON answer. */
    async function write(method: 'PUT' | 'POST', path: string, body: unknown): Promise<{ id?: string }> {
      const response = await gateway.fetch(`${BASE}${path}`, { method, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
      expect(response.status, `${method} ${path}: ${await response.clone().text()}`).toBeLessThan(300);
      return response.status === 204 ? {} : ((await response.json()) as { id?: string });
    }

    beforeAll(async () => {
      gateway = stack().gateway;
      client = await createClient(gateway.registry);
      token = await tokenFor(gateway, client.clientId, client.secret);
    });

    it('is served with its assets, by the gateway itself, under a policy that allows nothing from elsewhere', async () => {
      const page = await gateway.fetch('/board', { headers: { 'X-Forwarded-Prefix': '/rm' } });
      expect(page.status).toBe(200);
      expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      const html = await page.text();
      // behind the proxy's prefix: its assets, the API and the token endpoint as the browser reaches them
      expect(html).toContain('src="/rm/board/board.js"');
      expect(html).toContain(`data-base-url="${gateway.origin}/rm${BASE}"`);
      expect(html).toContain(`data-token-url="${gateway.origin}/rm/oauth2/token"`);
      const script = await gateway.fetch('/board/board.js');
      expect(script.status).toBe(200);
      expect(script.headers.get('content-type')).toMatch(/javascript/);
      expect((await gateway.fetch('/board/board.css')).status).toBe(200);
      expect((await gateway.fetch('/board/other.js')).status).toBe(404);
    });

    describe.skipIf(SKIP_BROWSER)('in Chromium', () => {
      let browser: Browser;
      let page: Page;

      beforeAll(async () => {
        // the first truck of the place, and a second that needs a skill nobody has
        await write('PUT', '/transport-resource/board-truck', { type: 'TRUCK', start_location: DEPOT });
        await write('PUT', '/transport-resource/board-lzv', { type: 'TRUCK', requirements: ['LZV'], start_location: DEPOT });
        browser = await chromium.launch({ executablePath: CHROMIUM });
        const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, timezoneId: 'UTC' });
        page = await context.newPage();
      }, 60_000);

      afterAll(async () => {
        await browser?.close();
      });

      it('signs in with a client id and secret, says it is an operator tool, and refuses a wrong secret', async () => {
        await page.goto(`${gateway.origin}/board`);
        await expect.poll(() => page.getByText('An operator tool until user sign-in exists').isVisible(), WAIT).toBe(true);
        await page.getByLabel('Client id').fill(client.clientId);
        await page.getByLabel('Client secret').fill('not-the-secret');
        await page.getByRole('button', { name: 'Sign in' }).click();
        await expect.poll(() => page.getByRole('alert').textContent(), WAIT).toMatch(/Sign-in failed/);
        await page.getByLabel('Client secret').fill(client.secret);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await expect.poll(() => page.getByRole('tab', { name: 'Location' }).isVisible(), WAIT).toBe(true);
        await page.getByLabel('Day', { exact: true }).fill(DAY);
        await expect.poll(() => page.getByRole('table', { name: 'Timeline of Depot Board' }).isVisible(), WAIT).toBe(true);
      }, 60_000);

      it('shows a combination as soon as the engine makes it, from the change feed', async () => {
        await expect.poll(() => page.getByRole('status').filter({ hasText: 'Live' }).isVisible(), WAIT).toBe(true);
        await write('PUT', '/employee/board-ada', { name: { first_name: 'Ada', last_name: 'Peeters' }, start_location: DEPOT });
        await write('POST', '/employee/board-ada/availability', { earliest_start: at(6), max_duration: 'PT8H', mandatory: true });
        const bar = page.getByRole('button', { name: /^board-ada, shift .* \(mandatory\)$/ });
        await expect.poll(() => bar.isVisible(), ENGINE_WAIT).toBe(true);
        await bar.click();
        await expect.poll(() => page.getByRole('complementary', { name: 'Selected combination' }).textContent(), WAIT).toContain('board-ada on board-truck');
      }, 60_000);

      it("tells why a shift is not combined, in the engine's words", async () => {
        await write('PUT', '/employee/board-bert', { name: { first_name: 'Bert', last_name: 'Claes' }, start_location: DEPOT });
        await write('POST', '/employee/board-bert/availability', { earliest_start: at(7), max_duration: 'PT8H' });
        const bar = page.getByRole('button', { name: /^board-bert, shift .* not combined: why\?$/ });
        await expect.poll(() => bar.isVisible(), ENGINE_WAIT).toBe(true);
        await bar.click();
        const why = page.getByRole('complementary', { name: 'Why the shift is not combined' });
        await expect.poll(() => why.textContent(), WAIT).toContain("board-lzv: the employee's driver skills lack requirements of the transport resource: LZV");
        expect(await why.textContent()).toContain("board-truck: combined with a shift of employee 'board-ada' that overlaps this one");
      }, 60_000);

      it("generates an employee's missing availabilities from a schedule, and then shows each shift covered", async () => {
        await write('PUT', '/employee/board-cor', { name: { first_name: 'Cor', last_name: 'Janssens' }, start_location: DEPOT });
        await write('POST', '/employee/board-cor/shift-schedule', {
          start: { start_date: DAY, start_week: 1 },
          templates: [{ index: 1, shifts: [{ start: { earliest: { day: 'TUESDAY', time: '14:00' } }, duration: { at_most: 'PT8H' } }] }],
        });
        await page.getByRole('tab', { name: 'Employee' }).click();
        await page.getByLabel('Span').selectOption('7');
        await page.getByLabel('Employee id').fill('board-cor');
        await page.getByRole('button', { name: 'Show' }).click();
        await expect.poll(() => page.getByText('1 expected shift, 1 without an availability.').isVisible(), WAIT).toBe(true);
        await page.getByRole('button', { name: 'Generate missing availabilities' }).click();
        await expect.poll(() => page.getByRole('status').filter({ hasText: 'Created' }).textContent(), WAIT).toContain('Created 1, already there 0');
        await expect.poll(() => page.getByText('1 expected shift, 0 without an availability.').isVisible(), WAIT).toBe(true);
        expect(await page.getByLabel(/^expected .*: has its availability$/).count()).toBe(1);
      }, 60_000);
    });
  });
}
