import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, signIn, type GatewayHarness } from '../helpers.js';
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
    let client: { clientId: string; secret: string; token: string };

    /** A write through the gateway as the tenant's integrator would make it; its JSON answer. */
    async function write(method: 'PUT' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<{ id?: string }> {
      const response = await gateway.fetch(`${BASE}${path}`, {
        method,
        headers: { Authorization: `Bearer ${client.token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      expect(response.status, `${method} ${path}: ${await response.clone().text()}`).toBeLessThan(300);
      return response.status === 204 ? {} : ((await response.json()) as { id?: string });
    }

    beforeAll(async () => {
      gateway = stack().gateway;
      client = await signIn(gateway);
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
      let adaAvailability: string;

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
        adaAvailability = (await write('POST', '/employee/board-ada/availability', { earliest_start: at(6), max_duration: 'PT8H', mandatory: true })).id!;
        const bar = page.getByRole('button', { name: /^board-ada, shift .* \(mandatory\)$/ });
        await expect.poll(() => bar.isVisible(), ENGINE_WAIT).toBe(true);
        await bar.click();
        await expect.poll(() => page.getByRole('complementary', { name: 'Selected combination' }).textContent(), WAIT).toContain('board-ada on board-truck');
      }, 60_000);

      it('reads days and times in the time zone the planner chooses, not the browser’s, and remembers it', async () => {
        const bar = page.getByRole('button', { name: /^board-ada, shift/ });
        const left = async () => Number(/left: ([\d.]+)%/.exec((await bar.getAttribute('style')) ?? '')?.[1]);
        expect(await bar.getAttribute('aria-label')).toMatch(/shift 06:00/);
        expect(await left()).toBeCloseTo(25);
        await page.getByLabel('Time zone').selectOption('Europe/Amsterdam');
        // the day begins at 23:00Z: the 06:00Z shift reads 07:00 and sits seven hours into it
        await expect.poll(() => bar.getAttribute('aria-label'), WAIT).toMatch(/shift 07:00/);
        expect(await left()).toBeCloseTo((7 / 24) * 100);
        await page.reload();
        await expect.poll(() => page.getByLabel('Time zone').inputValue(), WAIT).toBe('Europe/Amsterdam');
        await page.getByLabel('Time zone').selectOption('UTC');
        await page.getByLabel('Day', { exact: true }).fill(DAY);
        await expect.poll(() => bar.getAttribute('aria-label'), WAIT).toMatch(/shift 06:00/);
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

      it('says so when the shift it explains has been combined since, and closes when the planner moves to another day', async () => {
        const why = page.getByRole('complementary', { name: 'Why the shift is not combined' });
        await write('DELETE', `/employee/board-ada/availability/${adaAvailability}`);
        await expect.poll(() => why.textContent(), ENGINE_WAIT).toContain('is combined now');
        expect(await why.textContent()).toContain('combined it with board-truck');
        await page.getByLabel('Day', { exact: true }).fill('2030-01-08');
        await expect.poll(() => why.count(), WAIT).toBe(0);
        await page.getByLabel('Day', { exact: true }).fill(DAY);
      }, 60_000);

      it('lists shifts that start where no transport resource does under Elsewhere, overlapping ones one below the other', async () => {
        const NOWHERE = { name: 'Depot Nowhere', geo_point: { latitude: 50.85, longitude: 4.35 } };
        for (const [id, hour] of [['board-dora', 8], ['board-emil', 9]] as const) {
          await write('PUT', `/employee/${id}`, { name: { first_name: id.slice(6), last_name: 'Maes' }, start_location: NOWHERE });
          await write('POST', `/employee/${id}/availability`, { earliest_start: at(hour), max_duration: 'PT8H' });
        }
        await page.getByLabel('Place').selectOption({ label: 'Elsewhere (no transport resource starts there)' });
        const dora = page.getByRole('button', { name: /^board-dora, shift .* not combined: why\?$/ });
        const emil = page.getByRole('button', { name: /^board-emil, shift .* not combined: why\?$/ });
        await expect.poll(async () => (await dora.isVisible()) && (await emil.isVisible()), ENGINE_WAIT).toBe(true);
        expect(await page.getByRole('table', { name: /^Timeline of Elsewhere/ }).getByRole('rowheader').allTextContents()).toEqual(['Not combined2 shifts']);
        // the shifts overlap from 09:00 to 16:00: each in its own sub-row, and each can be clicked
        const [doraBox, emilBox] = [(await dora.boundingBox())!, (await emil.boundingBox())!];
        expect(emilBox.y).toBeGreaterThanOrEqual(doraBox.y + doraBox.height);
        await dora.click({ trial: true });
        await emil.click({ trial: true });
        await page.getByLabel('Place').selectOption({ label: 'Depot Board' });
        await expect.poll(() => page.getByRole('table', { name: 'Timeline of Depot Board' }).isVisible(), WAIT).toBe(true);
      }, 60_000);

      it('shows a failed load above the board, and takes it away when a later load succeeds', async () => {
        const unavailabilities = /\/transport-resource\/[^/]+\/unavailability\?/;
        await page.route(unavailabilities, (route) =>
          route.fulfill({ status: 400, contentType: 'application/problem+json', body: JSON.stringify({ type: 'about:blank', title: 'Bad Request', status: 400, detail: 'staged by the test' }) }),
        );
        await page.getByLabel('Span').selectOption('7');
        await expect.poll(() => page.getByRole('alert').textContent(), WAIT).toContain('Could not read the board');
        expect(await page.getByLabel('Place').isVisible()).toBe(true);
        await page.unroute(unavailabilities);
        await page.getByLabel('Span').selectOption('1');
        await expect.poll(() => page.getByRole('alert').count(), WAIT).toBe(0);
        expect(await page.getByRole('table', { name: 'Timeline of Depot Board' }).isVisible()).toBe(true);
      }, 60_000);

      it('announces a bar that cannot be chosen by its description', async () => {
        await write('POST', '/transport-resource/board-lzv/unavailability', { from: at(16), to: at(20), description: 'Tyres' });
        await expect.poll(() => page.getByRole('img', { name: /^unavailable .*: Tyres$/ }).isVisible(), WAIT).toBe(true);
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
