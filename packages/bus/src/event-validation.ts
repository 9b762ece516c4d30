import { Ajv } from 'ajv';
import ajvFormats from 'ajv-formats';
import { EventEnvelope } from '@rm/contracts';
import { InvalidEventError } from './errors.js';

/** A received message: a valid envelope, or why it is not one with what was received (parsed or raw). */
export type ParsedEvent = { event: EventEnvelope } | { error: InvalidEventError; received: unknown };

/** Parses a received message and checks it against the event envelope contract. */
export type EventParser = (text: string) => ParsedEvent;

export function createEventParser(): EventParser {
  const ajv = new Ajv({ allErrors: true });
  // ajv-formats is CommonJS: under nodenext its plugin is the default export's `default`
  ajvFormats.default(ajv, ['uuid', 'date-time']);
  const validate = ajv.compile<EventEnvelope>(EventEnvelope);
  return (text) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      return { error: new InvalidEventError('not JSON', { cause: err }), received: text };
    }
    if (!validate(parsed)) return { error: new InvalidEventError(ajv.errorsText(validate.errors)), received: parsed };
    return { event: parsed };
  };
}
