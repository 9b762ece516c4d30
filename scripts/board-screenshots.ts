// The README's screenshots of the board: a throw-away stack of the built services (scripts/stack.ts), a
// haulier's day at one depot written through the API, and Debian's Chromium at 1280 x 800.
// `npm run build && node scripts/board-screenshots.ts` (RM_CHROMIUM_PATH for another Chromium).
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startRunServers } from '@rm/testkit';
import { createThrowawayTenant, startStack, stopThrowawayStack, throwawayStackOptions } from './stack.ts';

const OUT = join(import.meta.dirname, '..', 'packages', 'board', 'screenshots');
const DAY = '2030-01-08';
const at = (hour: number, minute = 0) => `${DAY}T${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}:00Z`;
const DEPOT = { name: 'Depot Gent', geo_point: { latitude: 51.05, longitude: 3.72 } };

const run = await startRunServers();
const servers = { mongoUrl: run.mongoUrl, natsUrl: run.natsUrl };
const stack = await startStack(throwawayStackOptions(servers, 'screenshots'));
try {
  const tenant = await createThrowawayTenant(stack, 'haulier');
  const tokenAnswer = await fetch(`${stack.gateway}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: tenant.clientId, client_secret: tenant.secret }),
  });
  const { access_token: token } = (await tokenAnswer.json()) as { access_token: string };
  const send = async (method: string, path: string, body: unknown) => {
    const answer = await fetch(`${stack.api}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${await answer.text()}`);
  };
  await send('PUT', '/transport-resource/truck-12', { type: 'TRUCK', reference: '1-VXD-412', start_location: DEPOT });
  await send('PUT', '/transport-resource/truck-17', { type: 'TRUCK', reference: '1-KLM-117', start_location: DEPOT });
  await send('PUT', '/transport-resource/tanker-03', { type: 'TRUCK', reference: '2-ADR-003', requirements: ['ADR'], start_location: DEPOT });
  await send('POST', '/transport-resource/truck-17/unavailability', { from: at(15), to: at(19), description: 'Tyres' });
  const drivers = [
    ['anke', 'Anke', ['C', 'CE', 'ADR'], at(5), 'PT9H'],
    ['bram', 'Bram', ['C', 'CE'], at(6), 'PT8H'],
    ['chris', 'Chris', ['C'], at(7), 'PT8H'],
    ['dirk', 'Dirk', ['C', 'CE'], at(14, 30), 'PT8H'],
  ] as const;
  for (const [id, name, skills, start, duration] of drivers) {
    await send('PUT', `/employee/${id}`, { name: { first_name: name, last_name: 'Peeters' }, driver_skills: skills, start_location: DEPOT });
    await send('POST', `/employee/${id}/availability`, { earliest_start: start, latest_start: start.replace(/T(\d\d)/, (_, hour: string) => `T${String(Number(hour) + 1).padStart(2, '0')}`), max_duration: duration, min_duration: 'PT6H' });
  }
  await send('POST', '/employee/chris/shift-schedule', {
    start: { start_date: '2030-01-07', start_week: 1 },
    templates: [{ index: 1, shifts: ['MONDAY', 'WEDNESDAY', 'FRIDAY'].map((day) => ({ start: { earliest: { day, time: '07:00' } }, duration: { at_most: 'PT8H' } })) }],
  });

  const browser = await chromium.launch({ executablePath: process.env.RM_CHROMIUM_PATH ?? '/usr/bin/chromium' });
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 }, timezoneId: 'UTC' })).newPage();
  await page.goto(`${stack.gateway}/board`);
  await page.getByLabel('Client id').fill(tenant.clientId);
  await page.getByLabel('Client secret').fill(tenant.secret);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByLabel('Day', { exact: true }).fill(DAY);
  await page.getByRole('button', { name: /^dirk, shift .* not combined: why\?$/ }).waitFor({ timeout: 60_000 });
  await page.getByRole('button', { name: /^anke, shift/ }).waitFor({ timeout: 60_000 });
  await page.screenshot({ path: join(OUT, 'location.png') });
  await page.getByRole('button', { name: /^dirk, shift .* not combined: why\?$/ }).click();
  await page.getByText(/tanker-03:/).waitFor();
  await page.screenshot({ path: join(OUT, 'why-not-combined.png') });
  await page.getByRole('tab', { name: 'Employee' }).click();
  await page.getByLabel('Day', { exact: true }).fill('2030-01-07');
  await page.getByLabel('Span').selectOption('7');
  await page.getByLabel('Employee id').fill('chris');
  await page.getByRole('button', { name: 'Show' }).click();
  await page.getByRole('button', { name: 'Generate missing availabilities' }).click();
  await page.getByRole('status').filter({ hasText: 'Created' }).waitFor();
  await page.screenshot({ path: join(OUT, 'employee.png') });
  await browser.close();
} finally {
  await stopThrowawayStack(stack, servers);
  await run.stop();
}
