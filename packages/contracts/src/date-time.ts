/**
 * The stored and returned form of a date-time (DESIGN §8: any offset in, UTC out):
 * `2024-05-01T10:00:00+02:00` → `2024-05-01T08:00:00Z`. Milliseconds are kept when not zero; finer
 * digits are cut, as JavaScript dates hold milliseconds. `text` has passed the `date-time` format.
 */
export function toUtcDateTime(text: string): string {
  return new Date(text).toISOString().replace('.000Z', 'Z');
}
