// The planner's board (issue 30) in Debian's Chromium against the whole stack as `npm start` runs it
// (scripts/stack.ts): one depot with BENCH_BOARD_TRUCKS trucks (default 20) and BENCH_BOARD_SHIFTS shifts in a
// week (default 500), loaded with one import and matched by the engine. Measured:
// - drawing the depot's week: from choosing the week until every bar is on the page, next to the API reads the
//   board makes for it, timed alone from Node (the baseline: what any page would wait for);
// - scrolling it: the longest frame while the page scrolls to the bottom and back;
// - a change reaching it: from writing a new availability until its combination's bar is on the page, next to
//   the same combination's change event reaching a change feed read from Node (the baseline).
import { chromium } from 'playwright-core';
import { Pool } from 'undici';
import { createClient, type ApiClient } from '@rm/client';
import { testServers } from '@rm/testkit';
import { createThrowawayTenant, startStack, stopThrowawayStack, throwawayStackOptions } from '../scripts/stack.ts';
import type { Bench } from './lib/bench.ts';
import { API_BASE, bearer } from './lib/gateway-calls.ts';
import { issueToken } from './lib/gateway-token.ts';
import { printMarkdown } from './lib/report.ts';
import { percentile, sortedAscending } from './lib/stats.ts';

const TRUCKS = Number(process.env.BENCH_BOARD_TRUCKS ?? 20);
const SHIFTS = Number(process.env.BENCH_BOARD_SHIFTS ?? 500);
const DRAWS = 7;
const CHANGES = 15;
const CHROMIUM = process.env.RM_CHROMIUM_PATH ?? '/usr/bin/chromium';
/** A Monday; the week's shifts start on its five weekdays, the changes on its Saturday. */
const WEEK = '2030-01-07';
const DEPOT = { name: 'Depot Bench', geo_point: { latitude: 51.05, longitude: 3.72 } };
const SHIFT_HOURS = [5, 6, 7, 8, 9, 10, 11, 12, 13, 14];

const at = (day: number, hour: number) => new Date(Date.parse(`${WEEK}T00:00:00Z`) + (day * 24 + hour) * 3_600_000).toISOString().replace('.000Z', 'Z');
const ms = (values: readonly number[]) => {
  const sorted = sortedAscending(values);
  return `${percentile(sorted, 50).toFixed(0)} / ${sorted.at(-1)!.toFixed(0)}`;
};

/** The depot's trucks, and employees with one shift a weekday each until there are SHIFTS, as one import. */
function seedLines(): string {
  const lines: object[] = [];
  for (let truck = 0; truck < TRUCKS; truck += 1) lines.push({ method: 'PUT', path: `/transport-resource/t-${truck}`, body: { type: 'TRUCK', start_location: DEPOT } });
  const employees = Math.ceil(SHIFTS / 5);
  for (let employee = 0; employee < employees; employee += 1) {
    lines.push({ method: 'PUT', path: `/employee/e-${employee}`, body: { name: { first_name: 'Bench', last_name: String(employee) }, start_location: DEPOT } });
  }
  for (let shift = 0; shift < SHIFTS; shift += 1) {
    const [employee, day] = [Math.floor(shift / 5), shift % 5];
    lines.push({ method: 'POST', path: `/employee/e-${employee}/availability`, body: { earliest_start: at(day, SHIFT_HOURS[employee % SHIFT_HOURS.length]!), max_duration: 'PT8H' } });
  }
  return `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
}

/** Every item of a paged list. */
async function all<T>(pages: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of pages) items.push(item);
  return items;
}

/** What the board reads to draw the depot's week (location-view.tsx), timed alone. */
async function boardReads(rm: ApiClient): Promise<number> {
  const query = { from: `${WEEK}T00:00:00Z`, until: at(7, 0) };
  const started = performance.now();
  const [resources] = await Promise.all([all(rm.each.getPagedTransportResources()), all(rm.each.getPagedResourceCombinations({ query })), all(rm.each.getPagedAvailableEmployees({ query }))]);
  for (let next = 0; next < resources.length; next += 6) {
    await Promise.all(resources.slice(next, next + 6).map((resource) => rm.getTransportResourceUnavailabilities(resource.business_id, { query })));
  }
  return performance.now() - started;
}

/** Waits until the engine has a snapshot of every shift and its combinations stay the same for 3 s. */
async function converged(rm: ApiClient): Promise<number> {
  const query = { from: `${WEEK}T00:00:00Z`, until: at(7, 0) };
  let last = -1;
  let stableSince = performance.now();
  for (;;) {
    const [snapshots, combinations] = await Promise.all([all(rm.each.getPagedAvailableEmployees({ query })), all(rm.each.getPagedResourceCombinations({ query }))]);
    if (snapshots.length !== SHIFTS || combinations.length !== last) [last, stableSince] = [combinations.length, performance.now()];
    else if (performance.now() - stableSince > 3_000) return combinations.length;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

export const boardBench: Bench = {
  name: 'board',
  async run() {
    const servers = testServers();
    const stack = await startStack({ ...throwawayStackOptions(servers, 'bench_board'), gatewayVariables: { TENANT_REQUEST_RATE: '1000000', TOKEN_LIFETIME_SECONDS: '3600' } });
    const pool = new Pool(stack.gateway, { connections: 8, headersTimeout: 0, bodyTimeout: 0 });
    const browser = await chromium.launch({ executablePath: CHROMIUM });
    try {
      const tenant = await createThrowawayTenant(stack, 'bench-board');
      const token = await issueToken(pool, tenant);
      const imported = await pool.request({ method: 'POST', path: `${API_BASE}/import`, headers: { ...bearer(token), 'content-type': 'application/x-ndjson' }, body: seedLines() });
      const outcomes = (await imported.body.text()).trim().split('\n');
      const refused = outcomes.filter((line) => !/"status":20[01]/.test(line));
      if (refused.length > 0) throw new Error(`the seed import refused ${refused.length} lines, e.g. ${refused[0]}`);
      const rm = createClient({ baseUrl: `${stack.gateway}${API_BASE}`, tokenUrl: `${stack.gateway}/oauth2/token`, clientId: tenant.clientId, clientSecret: tenant.secret });
      const combined = await converged(rm);
      console.log(`board: ${SHIFTS} shifts at ${TRUCKS} trucks, ${combined} combined`);

      const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 }, timezoneId: 'UTC' })).newPage();
      await page.goto(`${stack.gateway}/board`);
      await page.getByLabel('Client id').fill(tenant.clientId);
      await page.getByLabel('Client secret').fill(tenant.secret);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByLabel('Time zone').selectOption('UTC');
      await page.getByLabel('Day', { exact: true }).fill(WEEK);
      await page.getByRole('status').filter({ hasText: 'Live' }).waitFor({ timeout: 30_000 });
      // every shift of the week is a bar: a combination in a truck's row, or in the lane of those not combined
      const barsDrawn = () => page.waitForFunction((expected) => document.querySelectorAll('.timeline .bar:not(.unavailable)').length >= expected, SHIFTS, { polling: 'raf', timeout: 60_000 });

      const draws: number[] = [];
      const reads: number[] = [];
      for (let draw = 0; draw < DRAWS; draw += 1) {
        await page.getByLabel('Span').selectOption('1');
        await page.locator('.timeline').waitFor();
        const started = performance.now();
        await page.getByLabel('Span').selectOption('7');
        await barsDrawn();
        draws.push(performance.now() - started);
        reads.push(await boardReads(rm));
      }

      // the longest frame while the page scrolls to its bottom and back, a step each frame
      const longestFrame = await page.evaluate(async () => {
        const frames: number[] = [];
        let last = performance.now();
        const height = document.documentElement.scrollHeight - window.innerHeight;
        for (const target of [height, 0]) {
          while (Math.abs(window.scrollY - target) > 1) {
            window.scrollBy(0, Math.sign(target - window.scrollY) * Math.max(1, Math.min(40, Math.abs(target - window.scrollY))));
            await new Promise((resolve) => requestAnimationFrame(resolve));
            const now = performance.now();
            frames.push(now - last);
            last = now;
          }
        }
        return { frames: frames.length, longest: Math.max(0, ...frames), height };
      });

      const toBoard: number[] = [];
      const toFeed: number[] = [];
      for (let change = 0; change < CHANGES; change += 1) {
        const employee = `live-${change}`;
        await rm.upsertEmployee(employee, { name: { first_name: 'Live', last_name: String(change) }, start_location: DEPOT });
        const feed = new AbortController();
        const heard = (async () => {
          for await (const { event } of rm.changes({ types: ['resource-combination.created'], signal: feed.signal })) {
            if ((event as { data?: { employee_id?: string } }).data?.employee_id === employee) return performance.now();
          }
          return Number.NaN;
        })();
        // the feed is open before the write, so that its event is not missed
        await new Promise((resolve) => setTimeout(resolve, 500));
        const bar = page.getByRole('button', { name: new RegExp(`^${employee}, shift `) });
        const started = performance.now();
        await rm.addEmployeeAvailability(employee, { earliest_start: at(5, 6 + (change % 10)), max_duration: 'PT8H' });
        await bar.waitFor({ timeout: 60_000 });
        toBoard.push(performance.now() - started);
        toFeed.push((await heard) - started);
        feed.abort();
      }

      const drawsRatio = percentile(sortedAscending(draws), 50) / percentile(sortedAscending(reads), 50);
      const liveRatio = percentile(sortedAscending(toBoard), 50) / percentile(sortedAscending(toFeed), 50);
      printMarkdown(
        `The board: a depot's week of ${SHIFTS} shifts at ${TRUCKS} trucks (${combined} combined), in Chromium at 1280 × 800`,
        ['case', 'p50 / max ms', 'baseline', 'baseline p50 / max ms', 'p50 ÷ baseline p50'],
        [
          [`the week drawn, every bar on the page (${DRAWS} times)`, ms(draws), "the board's API reads for it, from Node", ms(reads), `${drawsRatio.toFixed(2)}×`],
          [`a new availability's combination on the board (${CHANGES} times)`, ms(toBoard), 'its change event on a feed read from Node', ms(toFeed), `${liveRatio.toFixed(2)}×`],
          [`scrolling the page (${longestFrame.height} px, ${longestFrame.frames} frames): the longest frame`, longestFrame.longest.toFixed(0), '', '', ''],
        ],
      );
    } finally {
      await browser.close();
      await pool.destroy();
      await stopThrowawayStack(stack, servers);
    }
  },
};
