import { parseDuration, toUtcDateTime, type DeploymentFields, type DeploymentInput, type FieldsDecision, type Violation } from '@rm/contracts';

/**
 * The rules of an external deployment that its schema cannot say: the start location is exactly one
 * of `home_base` and `address`; `end.at` is after `start.at`; the total break time fits in between.
 * The stored form names its resources as responses do (`employee_id`, `transport_resource_ids`), with
 * date-times in UTC and read-only fields gone.
 */
export function decideDeployment(input: DeploymentInput): FieldsDecision<DeploymentFields> {
  const violations = deploymentViolations(input);
  if (violations.length > 0) return { ok: false, violations };
  const { employee, transport_resources, start, end, total_break_time } = input;
  return {
    ok: true,
    fields: {
      employee_id: employee,
      transport_resource_ids: transport_resources,
      start: { at: toUtcDateTime(start.at), location: start.location },
      end: { at: toUtcDateTime(end.at) },
      ...(total_break_time === undefined ? {} : { total_break_time }),
    },
  };
}

function deploymentViolations({ start, end, total_break_time }: DeploymentInput): Violation[] {
  const violations: Violation[] = [];
  const chosen = [start.location.home_base, start.location.address].filter((choice) => choice !== undefined).length;
  if (chosen !== 1) violations.push({ field: 'start.location', message: 'must have exactly one of home_base and address' });
  const length = Date.parse(end.at) - Date.parse(start.at);
  if (length <= 0) violations.push({ field: 'end.at', message: 'must be after start.at' });
  const breaks = total_break_time === undefined ? undefined : parseDuration(total_break_time);
  if (breaks !== undefined && length > 0 && breaks > length) {
    violations.push({ field: 'total_break_time', message: 'must fit between start.at and end.at' });
  }
  return violations;
}

/** A span of time a deployment takes a resource for: `[start, end)`. */
export interface Span {
  start: Date;
  end: Date;
}

/** The time a deployment takes its resources for: `[start.at, end.at)`. */
export function deploymentSpan(deployment: DeploymentFields): Span {
  return { start: new Date(deployment.start.at), end: new Date(deployment.end.at) };
}
