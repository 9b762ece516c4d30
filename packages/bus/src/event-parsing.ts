import type { EventEnvelope, EventValidator } from '@rm/contracts';
import { InvalidEventError } from './errors.js';

/** A received message: a valid event, or why it is not one with what was received (parsed or raw). */
export type ParsedEvent = { event: EventEnvelope } | { error: InvalidEventError; received: unknown };

/** Parses a received message and checks it against its event contract (STYLE 7). */
export function parseEvent(text: string, validate: EventValidator): ParsedEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { error: new InvalidEventError('not JSON', { cause: err }), received: text };
  }
  const check = validate(parsed);
  return check.ok ? { event: check.event } : { error: new InvalidEventError(check.reason), received: parsed };
}
