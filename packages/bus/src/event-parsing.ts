import type { EventEnvelope, EventValidator } from '@rm/contracts';
import { InvalidEventError } from './errors.js';

/** A received message: a valid event, or why it is not one with what was received (parsed or raw). */
export type ParsedEvent = { event: EventEnvelope } | { error: InvalidEventError; received: unknown };

/**
 * Parses a received message and checks it against its event contract (STYLE 7), and against the subject
 * it came on: `….<tenant>.<entity>.<action>`, which the stream's permissions are given by. An event that
 * names another tenant or type than its subject is refused: a publisher allowed one tenant's subjects
 * must not write another tenant's state.
 */
export function parseEvent(text: string, validate: EventValidator, subject: string): ParsedEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { error: new InvalidEventError('not JSON', { cause: err }), received: text };
  }
  const check = validate(parsed);
  if (!check.ok) return { error: new InvalidEventError(check.reason), received: parsed };
  const [tenant, entity, action] = subject.split('.').slice(-3);
  if (check.event.tenant !== tenant) {
    return { error: new InvalidEventError(`tenant '${check.event.tenant}' is not the tenant of its subject ${subject}`), received: parsed };
  }
  if (check.event.type !== `${entity}.${action}`) {
    return { error: new InvalidEventError(`type '${check.event.type}' is not the type of its subject ${subject}`), received: parsed };
  }
  return { event: check.event };
}
