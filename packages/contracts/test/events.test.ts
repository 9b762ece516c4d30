import { describe, expect, it } from 'vitest';
import { eventSubject, serviceStream } from '../src/index.js';

describe('event naming', () => {
  it('builds subjects as rm.<service>.<entity>.<action>', () => {
    expect(eventSubject('employees', 'employee', 'created')).toBe('rm.employees.employee.created');
    expect(eventSubject('transport-resources', 'unavailability', 'deleted')).toBe(
      'rm.transport-resources.unavailability.deleted',
    );
  });

  it('gives each service one stream over all its subjects', () => {
    expect(serviceStream('employees')).toEqual({ name: 'RM_EMPLOYEES', subjects: ['rm.employees.>'] });
    expect(serviceStream('transport-resources')).toEqual({
      name: 'RM_TRANSPORT_RESOURCES',
      subjects: ['rm.transport-resources.>'],
    });
  });
});
