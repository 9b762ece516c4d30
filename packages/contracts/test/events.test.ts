import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import {
  createEventValidator,
  EMPLOYEE_EVENTS,
  entityEvents,
  entityOfType,
  entitySubjects,
  eventSubject,
  eventType,
  isTenantId,
  serviceStream,
  toUtcDateTime,
} from '../src/index.js';

const widgets = entityEvents('things', 'widget', Type.Object({ key: Type.String(), size: Type.Integer() }, { additionalProperties: false }));

function widgetEvent(overrides: Record<string, unknown> = {}) {
  return {
    id: '01890a5d-ac96-774b-bcce-b302099a8057',
    type: 'widget.created',
    tenant: 'tenant-a',
    entity_id: 'w-1',
    version: 1,
    occurred_at: '2024-05-01T08:00:00Z',
    data: { key: 'w-1', size: 3 },
    ...overrides,
  };
}

describe('event naming', () => {
  it('builds subjects as rm.<service>.<tenant>.<entity>.<action>', () => {
    expect(eventSubject(EMPLOYEE_EVENTS, 'acme', 'created')).toBe('rm.employees.acme.employee.created');
    expect(eventSubject(entityEvents('transport-resources', 'transport-resource-unavailability', Type.Object({})), 't_1', 'deleted')).toBe(
      'rm.transport-resources.t_1.transport-resource-unavailability.deleted',
    );
  });

  it('filters one entity of every tenant with a wildcard on the tenant token', () => {
    expect(entitySubjects(EMPLOYEE_EVENTS)).toBe('rm.employees.*.employee.*');
  });

  it('names event types <entity>.<action> and reads the entity back', () => {
    expect(eventType('transport-resource', 'updated')).toBe('transport-resource.updated');
    expect(entityOfType('transport-resource.updated')).toBe('transport-resource');
  });

  it('gives each service one stream over all its subjects', () => {
    expect(serviceStream('employees')).toEqual({ name: 'RM_EMPLOYEES', subjects: ['rm.employees.>'] });
    expect(serviceStream('transport-resources')).toEqual({
      name: 'RM_TRANSPORT_RESOURCES',
      subjects: ['rm.transport-resources.>'],
    });
  });
});

describe('tenant ids', () => {
  it.each(['acme', 'tenant_1', 'A-b-9', 'x'.repeat(64)])('accepts %s', (tenant) => {
    expect(isTenantId(tenant)).toBe(true);
  });

  // each of these would split or widen a subject, or split a document id
  it.each(['', 'a.b', 'a*', 'a>', 'a b', 'a/b', 'é', 'x'.repeat(65), 'a\n'])('refuses %j', (tenant) => {
    expect(isTenantId(tenant)).toBe(false);
  });
});

describe('toUtcDateTime', () => {
  it.each([
    ['2024-05-01T10:00:00+02:00', '2024-05-01T08:00:00Z'],
    ['2024-05-01T08:00:00Z', '2024-05-01T08:00:00Z'],
    ['2024-05-01T08:00:00.250-01:30', '2024-05-01T09:30:00.250Z'],
    ['2024-12-31T23:30:00-01:00', '2025-01-01T00:30:00Z'],
    ['2024-05-01t08:00:00z', '2024-05-01T08:00:00Z'],
  ])('stores %s as %s', (given, stored) => {
    expect(toUtcDateTime(given)).toBe(stored);
  });
});

describe('event validation', () => {
  const validate = createEventValidator([widgets]);

  it('accepts an envelope whose data fits its entity contract', () => {
    const event = widgetEvent();
    expect(validate(event)).toEqual({ ok: true, event });
  });

  it('refuses data that breaks the contract, naming the field', () => {
    const check = validate(widgetEvent({ data: { key: 'w-1', size: 'big' } }));
    expect(check).toEqual({ ok: false, reason: expect.stringContaining('data/size must be integer') });
  });

  it('refuses an event type that has no contract', () => {
    expect(validate(widgetEvent({ type: 'gadget.created' }))).toEqual({ ok: false, reason: 'no contract for event type gadget.created' });
  });

  it.each([
    ['a version below 1', { version: 0 }, 'version'],
    ['a tenant that is not a subject token', { tenant: 'a.b' }, 'tenant'],
    ['an unknown action', { type: 'widget.renamed' }, 'type'],
    ['a missing id', { id: undefined }, 'id'],
  ])('refuses an envelope with %s', (_case, overrides, field) => {
    const check = validate(widgetEvent(overrides));
    expect(check.ok).toBe(false);
    expect(check.ok ? '' : check.reason).toContain(field);
  });

  it('checks employee events against the employee as the API shows it', () => {
    const validateEmployees = createEventValidator([EMPLOYEE_EVENTS]);
    const employee = { business_id: 'e-1', home_base: { business_id: 'hb-1' }, skills: ['nl'], version: 2 };
    expect(validateEmployees(widgetEvent({ type: 'employee.updated', entity_id: 'e-1', version: 2, data: employee })).ok).toBe(true);
    expect(validateEmployees(widgetEvent({ type: 'employee.updated', data: { ...employee, nickname: 'x' } })).ok).toBe(false);
  });
});
