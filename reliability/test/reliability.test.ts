// The short version of every scenario against one stack on the test run's servers: each must find
// nothing (npm run reliability runs them at full size and prints the counts).
import { describe, expect, it } from 'vitest';
import { stackPerFile } from './suite-per-file.ts';
import type { ScenarioReport } from '../lib/report.ts';
import { forgedEvents } from '../scenarios/forged-events.ts';
import { headerRedos } from '../scenarios/header-redos.ts';
import { hostileInput } from '../scenarios/hostile-input.ts';
import { races } from '../scenarios/races.ts';
import { rateLimitFairness } from '../scenarios/rate-limit-fairness.ts';
import { slowHeaders } from '../scenarios/slow-headers.ts';
import { spoofedForwardedFor } from '../scenarios/spoofed-forwarded-for.ts';
import { tenantsAndAuth } from '../scenarios/tenants-and-auth.ts';

const suite = stackPerFile();

const row = (report: ScenarioReport, measure: string) => report.rows.find(([name]) => name === measure)?.[1];

describe('the whole stack under hostile input, races and other tenants (short versions)', () => {
  it('answers hundreds of generated hostile requests without a 5xx, a non-problem 4xx or a leak, and still works after', async () => {
    const report = await hostileInput(suite(), 'short');
    expect(report.findings).toEqual([]);
    expect(row(report, 'requests')).toBeGreaterThanOrEqual(350);
    expect(row(report, '5xx')).toBe(0);
    expect(row(report, 'every service ready and a write + read working afterwards')).toBe('yes');
  });

  it('ends every race exactly as the spec says: one winner, the others refused, nothing lost', async () => {
    const report = await races(suite(), 'short');
    expect(report.findings).toEqual([]);
    expect(row(report, 'lost writes')).toBe(0);
  });

  it('refuses every bad token, blocks token brute force, and tells tenant A nothing about tenant B', async () => {
    const report = await tenantsAndAuth(suite());
    expect(report.findings).toEqual([]);
    expect(row(report, 'bad tokens accepted')).toBe(0);
    expect(row(report, 'answers that differed')).toBe(0);
  });

  it('refuses NATS to anonymous clients, and every forged event, stream change and foreign subscription to each user', async () => {
    const report = await forgedEvents(suite());
    expect(report.findings).toEqual([]);
    expect(row(report, 'anonymous connections accepted')).toBe(0);
    expect(row(report, "another service's events published")).toBeGreaterThanOrEqual(30);
    expect(row(report, 'of them accepted')).toBe(0);
    expect(row(report, 'of them stored')).toBe(0);
  });

  it('answers a tenant over its request rate with 429s, never a 5xx, and another tenant with every answer', async () => {
    const report = await rateLimitFairness(suite(), 'short');
    expect(report.findings).toEqual([]);
    expect(row(report, 'of them 429')).toBeGreaterThan(0);
    expect(row(report, 'of them 5xx')).toBe(0);
  });

  it('answers every header at 15,000 characters as its small twin, never with a 5xx', async () => {
    const report = await headerRedos(suite(), 'short');
    expect(report.findings).toEqual([]);
    expect(row(report, '5xx')).toBe(0);
  });

  it('answers a tenant while other connections drip their headers', async () => {
    const report = await slowHeaders(suite(), 'short');
    expect(report.findings).toEqual([]);
    expect(row(report, 'of them not 200')).toBe(0);
  });

  it('counts, limits and blocks a peer as itself, whatever X-Forwarded-For it sends', async () => {
    const report = await spoofedForwardedFor(suite());
    expect(report.findings).toEqual([]);
    expect(row(report, 'the named address, right secret, through the proxy')).toBe(200);
  });

  it('keeps every service running throughout', () => {
    expect(suite().exits).toEqual([]);
  });
});
