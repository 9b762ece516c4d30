/**
 * When signing keys take over, appear in and leave the key set. Pure: the key ring applies it.
 *
 * Keys form a chain: each new key is planned by the one before it (its `link` names that key, so
 * replicas that plan at once insert the same document and only one wins). A key is published
 * from the moment it is planned, signs from `activeFrom` until its successor's `activeFrom`, and
 * stays published until every token it signed has expired (`retentionMs` after it stopped).
 */

export interface ScheduledKey {
  kid: string;
  /** Epoch milliseconds from which it signs. */
  activeFrom: number;
}

export interface KeySchedulePolicy {
  /** Time between two keys taking over. */
  rotationMs: number;
  /** Time a key is published before it signs. */
  publishLeadMs: number;
  /** Time a key stays published after it stopped signing: the token lifetime and a margin for clocks. */
  retentionMs: number;
}

export interface PlannedKey {
  /** `_id` of the new key's document: one per predecessor. */
  link: string;
  activeFrom: number;
}

export const FIRST_KEY_LINK = 'first';

/** The key that signs at `now`: the newest that has taken over. */
export function signingKey<K extends ScheduledKey>(keys: readonly K[], now: number): K | undefined {
  return byActivation(keys).findLast((key) => key.activeFrom <= now);
}

/** The key to create now, if one is due: the first key, or the successor of the newest one. */
export function keyDue(keys: readonly ScheduledKey[], now: number, policy: KeySchedulePolicy): PlannedKey | undefined {
  const newest = byActivation(keys).at(-1);
  // Nobody can hold a token yet, so the first key signs at once.
  if (newest === undefined) return { link: FIRST_KEY_LINK, activeFrom: now };
  if (newest.activeFrom > now) return undefined;
  const takesOverAt = newest.activeFrom + policy.rotationMs;
  if (now < takesOverAt - policy.publishLeadMs) return undefined;
  // After a long stop the old key signs on until the new one has been published for the whole lead.
  return { link: successorLink(newest.kid), activeFrom: Math.max(takesOverAt, now + policy.publishLeadMs) };
}

export function successorLink(kid: string): string {
  return `after:${kid}`;
}

/** Whether the key set still shows the key: until `retentionMs` after its successor took over. */
export function isPublished(key: ScheduledKey, keys: readonly ScheduledKey[], now: number, policy: KeySchedulePolicy): boolean {
  const successor = byActivation(keys).find((other) => other.activeFrom > key.activeFrom);
  return successor === undefined || now < successor.activeFrom + policy.retentionMs;
}

function byActivation<K extends ScheduledKey>(keys: readonly K[]): K[] {
  return [...keys].sort((a, b) => a.activeFrom - b.activeFrom);
}
