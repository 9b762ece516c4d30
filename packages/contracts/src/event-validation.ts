import type { ValidateFunction } from 'ajv';
import { createAjv } from './ajv.js';
import { entityOfType, EventEnvelope, type EntityEvents } from './events.js';

export type EventCheck = { ok: true; event: EventEnvelope } | { ok: false; reason: string };

/** Checks an event against the envelope and its entity's contract (STYLE 7: when written and when received). */
export type EventValidator = (value: unknown) => EventCheck;

export function createEventValidator(contracts: readonly EntityEvents[]): EventValidator {
  const ajv = createAjv({ coerceTypes: false });
  const envelope = ajv.compile<EventEnvelope>(EventEnvelope);
  const dataOf = new Map<string, ValidateFunction>(contracts.map((contract) => [contract.entity, ajv.compile(contract.state)]));
  return (value) => {
    if (!envelope(value)) return { ok: false, reason: `not an event envelope: ${ajv.errorsText(envelope.errors)}` };
    const data = dataOf.get(entityOfType(value.type));
    if (data === undefined) return { ok: false, reason: `no contract for event type ${value.type}` };
    if (!data(value.data)) return { ok: false, reason: `${value.type} data: ${ajv.errorsText(data.errors, { dataVar: 'data' })}` };
    return { ok: true, event: value };
  };
}
