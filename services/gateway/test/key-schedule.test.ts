import { describe, expect, it } from 'vitest';
import {
  FIRST_KEY_LINK,
  isPublished,
  keyDue,
  signingKey,
  successorLink,
  type KeySchedulePolicy,
  type ScheduledKey,
} from '../src/domain/key-schedule.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const policy: KeySchedulePolicy = { rotationMs: 30 * DAY, publishLeadMs: DAY, retentionMs: 2 * HOUR };
const T0 = Date.UTC(2025, 0, 1);

const key = (kid: string, activeFrom: number): ScheduledKey => ({ kid, activeFrom });

describe('successorLink', () => {
  it('names the predecessor, so each key has at most one successor document', () => {
    expect(successorLink('k1')).toBe('after:k1');
    expect(successorLink('k1')).toBe(successorLink('k1'));
    expect(successorLink('k1')).not.toBe(successorLink('k2'));
  });

  it('never equals the first key link, whatever the kid', () => {
    expect(successorLink(FIRST_KEY_LINK)).not.toBe(FIRST_KEY_LINK);
    expect(successorLink('')).not.toBe(FIRST_KEY_LINK);
  });
});

describe('keyDue', () => {
  it('plans the first key, active at once, when there is none', () => {
    expect(keyDue([], T0, policy)).toEqual({ link: FIRST_KEY_LINK, activeFrom: T0 });
    expect(FIRST_KEY_LINK).toBe('first');
  });

  it('plans nothing while the newest key is still young', () => {
    const keys = [key('k1', T0)];
    expect(keyDue(keys, T0, policy)).toBeUndefined();
    expect(keyDue(keys, T0 + 10 * DAY, policy)).toBeUndefined();
    expect(keyDue(keys, T0 + policy.rotationMs - policy.publishLeadMs - 1, policy)).toBeUndefined();
  });

  it('plans the successor publishLeadMs before rotation, to take over exactly at rotation', () => {
    const dueAt = T0 + policy.rotationMs - policy.publishLeadMs;
    expect(keyDue([key('k1', T0)], dueAt, policy)).toEqual({ link: 'after:k1', activeFrom: T0 + policy.rotationMs });
  });

  it('gives the successor the whole publish lead when planned late: max(previous + rotation, now + lead)', () => {
    const late = T0 + policy.rotationMs - policy.publishLeadMs + HOUR;
    expect(keyDue([key('k1', T0)], late, policy)).toEqual({ link: 'after:k1', activeFrom: late + policy.publishLeadMs });
    const atRotation = T0 + policy.rotationMs;
    expect(keyDue([key('k1', T0)], atRotation, policy)).toEqual({ link: 'after:k1', activeFrom: atRotation + policy.publishLeadMs });
  });

  it('after a long downtime the old key signs on until the successor has been published for the whole lead', () => {
    const now = T0 + 400 * DAY;
    const planned = keyDue([key('k1', T0)], now, policy);
    expect(planned).toEqual({ link: 'after:k1', activeFrom: now + policy.publishLeadMs });
    // until then the old key is still the one that signs
    expect(signingKey([key('k1', T0), key('k2', planned!.activeFrom)], now + policy.publishLeadMs - 1)?.kid).toBe('k1');
  });

  it('plans nothing while a successor is already planned', () => {
    const keys = [key('k1', T0), key('k2', T0 + policy.rotationMs)];
    expect(keyDue(keys, T0 + policy.rotationMs - policy.publishLeadMs, policy)).toBeUndefined();
    expect(keyDue(keys, T0 + policy.rotationMs - 1, policy)).toBeUndefined();
    // and the first key is not planned again while its only key is in the future
    expect(keyDue([key('k1', T0 + HOUR)], T0, policy)).toBeUndefined();
  });

  it('chains from the newest key by activation, whatever the order of the list', () => {
    const k1 = key('k1', T0);
    const k2 = key('k2', T0 + policy.rotationMs);
    const k3 = key('k3', T0 + 2 * policy.rotationMs);
    const now = k3.activeFrom + policy.rotationMs - policy.publishLeadMs;
    const expected = { link: 'after:k3', activeFrom: k3.activeFrom + policy.rotationMs };
    expect(keyDue([k1, k2, k3], now, policy)).toEqual(expected);
    expect(keyDue([k3, k1, k2], now, policy)).toEqual(expected);
    expect(keyDue([k2, k3, k1], now, policy)).toEqual(expected);
  });

  it('plans the next key once the planned successor has taken over', () => {
    const k2From = T0 + policy.rotationMs;
    const keys = [key('k1', T0), key('k2', k2From)];
    expect(keyDue(keys, k2From, policy)).toBeUndefined();
    expect(keyDue(keys, k2From + policy.rotationMs - policy.publishLeadMs, policy)).toEqual({
      link: 'after:k2',
      activeFrom: k2From + policy.rotationMs,
    });
  });

  it('does not modify the list it is given', () => {
    const keys = [key('k2', T0 + policy.rotationMs), key('k1', T0)];
    const copy = structuredClone(keys);
    keyDue(keys, T0 + 2 * policy.rotationMs, policy);
    signingKey(keys, T0);
    isPublished(keys[1]!, keys, T0, policy);
    expect(keys).toEqual(copy);
  });
});

describe('signingKey', () => {
  it('is undefined without keys, or when every key is still in the future', () => {
    expect(signingKey([], T0)).toBeUndefined();
    expect(signingKey([key('k1', T0 + 1)], T0)).toBeUndefined();
  });

  it('picks the newest key that has taken over, not a planned one', () => {
    const keys = [key('k2', T0 + policy.rotationMs), key('k3', T0 + 2 * policy.rotationMs), key('k1', T0)];
    expect(signingKey(keys, T0)?.kid).toBe('k1');
    expect(signingKey(keys, T0 + policy.rotationMs - 1)?.kid).toBe('k1');
    expect(signingKey(keys, T0 + policy.rotationMs)?.kid).toBe('k2');
    expect(signingKey(keys, T0 + 2 * policy.rotationMs - 1)?.kid).toBe('k2');
    expect(signingKey(keys, T0 + 2 * policy.rotationMs)?.kid).toBe('k3');
    expect(signingKey(keys, T0 + 100 * policy.rotationMs)?.kid).toBe('k3');
  });

  it('returns the very object from the list, with its other fields', () => {
    const k1 = { kid: 'k1', activeFrom: T0, privateJwk: { kty: 'OKP' } };
    const k2 = { kid: 'k2', activeFrom: T0 + DAY, privateJwk: { kty: 'EC' } };
    expect(signingKey([k2, k1], T0 + HOUR)).toBe(k1);
  });
});

describe('isPublished', () => {
  const k1 = key('k1', T0);
  const k2 = key('k2', T0 + policy.rotationMs);
  const k3 = key('k3', T0 + 2 * policy.rotationMs);

  it('publishes the newest key, and a planned key before it signs', () => {
    expect(isPublished(k1, [k1], T0 + 1000 * DAY, policy)).toBe(true);
    expect(isPublished(k2, [k1, k2], k2.activeFrom - policy.publishLeadMs, policy)).toBe(true);
    expect(isPublished(k2, [k1, k2], T0, policy)).toBe(true);
  });

  it('keeps a retired key published exactly until its successor took over plus retentionMs', () => {
    const keys = [k1, k2];
    expect(isPublished(k1, keys, k2.activeFrom - 1, policy)).toBe(true);
    expect(isPublished(k1, keys, k2.activeFrom, policy)).toBe(true);
    expect(isPublished(k1, keys, k2.activeFrom + policy.retentionMs - 1, policy)).toBe(true);
    expect(isPublished(k1, keys, k2.activeFrom + policy.retentionMs, policy)).toBe(false);
    expect(isPublished(k1, keys, k2.activeFrom + 10 * policy.rotationMs, policy)).toBe(false);
  });

  it('counts retention from the immediate successor, not from a later key, in any list order', () => {
    for (const keys of [
      [k1, k2, k3],
      [k3, k2, k1],
      [k2, k3, k1],
    ]) {
      expect(isPublished(k1, keys, k2.activeFrom + policy.retentionMs - 1, policy)).toBe(true);
      expect(isPublished(k1, keys, k2.activeFrom + policy.retentionMs, policy)).toBe(false);
      expect(isPublished(k2, keys, k2.activeFrom + policy.retentionMs, policy)).toBe(true);
      expect(isPublished(k2, keys, k3.activeFrom + policy.retentionMs - 1, policy)).toBe(true);
      expect(isPublished(k2, keys, k3.activeFrom + policy.retentionMs, policy)).toBe(false);
      expect(isPublished(k3, keys, k3.activeFrom + 100 * policy.rotationMs, policy)).toBe(true);
    }
  });
});

/** mulberry32: a small seeded generator, so every run checks the same pseudo-random histories. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

interface Planned extends ScheduledKey {
  link: string;
  plannedAt: number;
}

/**
 * A key ring that checks the schedule at irregular moments (sometimes after long stops), and a
 * token signed at each check. Returns the keys and the tokens (signing key and time).
 */
function simulate(seed: number, rules: KeySchedulePolicy) {
  const next = random(seed);
  const keys: Planned[] = [];
  const tokens: { kid: string; at: number }[] = [];
  let mostWaiting = 0;
  let now = T0 + Math.floor(next() * DAY);
  for (let step = 0; step < 400; step += 1) {
    const due = keyDue(keys, now, rules);
    if (due !== undefined) keys.push({ kid: `k${keys.length + 1}`, link: due.link, activeFrom: due.activeFrom, plannedAt: now });
    const signer = signingKey(keys, now);
    if (signer !== undefined) tokens.push({ kid: signer.kid, at: now });
    mostWaiting = Math.max(mostWaiting, keys.filter((candidate) => candidate.activeFrom > now).length);
    const gap = next() < 0.05 ? next() * 10 * rules.rotationMs : next() * rules.publishLeadMs * 2;
    now += Math.max(1, Math.floor(gap));
  }
  return { keys, tokens, mostWaiting, end: now };
}

describe('key schedule: invariants over simulated histories', () => {
  const policies: KeySchedulePolicy[] = [
    policy,
    { rotationMs: 7 * DAY, publishLeadMs: 12 * HOUR, retentionMs: 3 * HOUR },
    { rotationMs: 1000, publishLeadMs: 300, retentionMs: 500 },
    { rotationMs: 1000, publishLeadMs: 10, retentionMs: 2000 },
  ];
  const seeds = Array.from({ length: 25 }, (_, index) => index * 7919 + 1);

  it('a key ring that follows keyDue always has a signer and plans one chain', () => {
    for (const rules of policies) {
      for (const seed of seeds) {
        const { keys, tokens, mostWaiting } = simulate(seed, rules);
        expect(keys.length).toBeGreaterThan(1);
        expect(keys[0]).toMatchObject({ link: FIRST_KEY_LINK, activeFrom: keys[0]!.plannedAt });
        // every check signed: the first key is active at once and a key never stops before its successor starts
        expect(tokens.length).toBe(400);
        for (let index = 1; index < keys.length; index += 1) {
          const previous = keys[index - 1]!;
          const current = keys[index]!;
          expect(current.link).toBe(successorLink(previous.kid));
          // published for the whole lead before it signs
          expect(current.activeFrom - current.plannedAt).toBeGreaterThanOrEqual(rules.publishLeadMs);
          // never rotates faster than the policy, and is planned only once its predecessor signs
          expect(current.activeFrom - previous.activeFrom).toBeGreaterThanOrEqual(rules.rotationMs);
          expect(current.plannedAt).toBeGreaterThanOrEqual(previous.activeFrom);
          // exact formula
          expect(current.activeFrom).toBe(Math.max(previous.activeFrom + rules.rotationMs, current.plannedAt + rules.publishLeadMs));
        }
        // at most one planned key waits to take over at any time
        expect(mostWaiting).toBe(1);
      }
    }
  });

  it('every token stays verifiable for retentionMs after it was signed', () => {
    for (const rules of policies) {
      for (const seed of seeds) {
        const { keys, tokens } = simulate(seed, rules);
        for (const token of tokens) {
          const signer = keys.find((candidate) => candidate.kid === token.kid)!;
          // with the key set as it was at that moment, and as it is at the end of the history
          for (const at of [token.at, token.at + rules.retentionMs - 1]) {
            const known = keys.filter((candidate) => candidate.plannedAt <= at);
            expect(isPublished(signer, known, at, rules)).toBe(true);
            expect(isPublished(signer, keys, at, rules)).toBe(true);
          }
        }
      }
    }
  });

  it('a retired key leaves the key set, and only the newest keys stay', () => {
    for (const rules of policies) {
      for (const seed of seeds) {
        const { keys, end } = simulate(seed, rules);
        const later = end + rules.rotationMs * 20;
        const published = keys.filter((candidate) => isPublished(candidate, keys, later, rules));
        // long after the last rotation only the newest key is shown
        expect(published.map((candidate) => candidate.kid)).toEqual([keys.at(-1)!.kid]);
        // and at any time the published keys are a contiguous run ending with the newest
        for (const at of [keys[1]!.activeFrom, keys[1]!.activeFrom + rules.retentionMs, end]) {
          const shown = keys.filter((candidate) => isPublished(candidate, keys, at, rules));
          const first = keys.indexOf(shown[0]!);
          expect(shown).toEqual(keys.slice(first));
          expect(shown).toContain(signingKey(keys, at));
        }
      }
    }
  });
});
