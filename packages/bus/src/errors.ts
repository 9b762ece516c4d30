/** Base of every error this package throws: a stable code and an HTTP status (all 500: bus failures are ours). */
export class BusError extends Error {
  readonly code: string;
  readonly statusCode: number = 500;

  constructor(code: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

export class NatsConnectError extends BusError {
  constructor(servers: string | string[], options?: ErrorOptions) {
    super('RM_BUS_NATS_CONNECT', `cannot connect to NATS at ${[servers].flat().join(', ')}`, options);
  }
}

export class StreamDeclarationError extends BusError {
  constructor(stream: string, options?: ErrorOptions) {
    super('RM_BUS_STREAM_DECLARATION', `cannot declare stream ${stream}`, options);
  }
}

export class ConsumerDeclarationError extends BusError {
  constructor(stream: string, durable: string, options?: ErrorOptions) {
    super('RM_BUS_CONSUMER_DECLARATION', `cannot declare consumer ${durable} on stream ${stream}`, options);
  }
}

/** A received message that is not a valid event envelope: it can never succeed, so it is dead-lettered. */
export class InvalidEventError extends BusError {
  constructor(reason: string, options?: ErrorOptions) {
    super('RM_BUS_INVALID_EVENT', `invalid event: ${reason}`, options);
  }
}

/** Thrown by an event handler when retrying cannot help: the event goes straight to the dead letters. */
export class PermanentEventError extends BusError {
  constructor(message: string, options?: ErrorOptions) {
    super('RM_BUS_PERMANENT_EVENT', message, options);
  }
}
