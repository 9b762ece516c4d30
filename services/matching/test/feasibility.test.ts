import { describe, expect, it } from 'vitest';
import {
  canCombine,
  combinationCapabilities,
  combinationCost,
  everyReasonNotToCombine,
  transportResourceView,
  whyNotCombine,
} from '../src/domain/feasibility.js';
import { atHomeBase, atPlace, shift, span, truck } from './fixtures.js';

describe('whyNotCombine: each rule of a pair (DESIGN §6)', () => {
  const journey = (...transportResourceIds: string[]) => ({ kind: 'journey' as const, transportResourceIds });
  const adr = { requirements: ['ADR'] };

  it.each([
    ['the same home base', shift('a'), truck('t'), null],
    ['another home base', shift('a'), truck('t', { location: atHomeBase('other') }), 'location'],
    ['the same ad-hoc name', shift('a', { location: atPlace('Port') }), truck('t', { location: atPlace('Port') }), null],
    ['another ad-hoc name', shift('a', { location: atPlace('Port') }), truck('t', { location: atPlace('port') }), 'location'],
    ['a home base against an ad-hoc name', shift('a', { location: atHomeBase('P') }), truck('t', { location: atPlace('P') }), 'location'],
    ['an ad-hoc name against a home base', shift('a', { location: atPlace('hb') }), truck('t'), 'location'],
    ['a journey with the resource it continues with', shift('a', { location: journey('t') }), truck('t', { location: atPlace('x') }), null],
    ['a journey with another resource at the same place', shift('a', { location: journey('u') }), truck('t'), 'location'],
    ['a shift without a start location', shift('a', { location: { kind: 'none' } }), truck('t'), 'location'],
    ['an inactive resource', shift('a'), truck('t', { inactive: true }), 'inactive'],
    ['a TRACTOR', shift('a'), truck('t', { type: 'TRACTOR' }), null],
    ['a TRAILER on its own', shift('a'), truck('t', { type: 'TRAILER' }), 'trailer'],
    ['requirements the driver has', shift('a', { driverSkills: ['C', 'ADR'] }), truck('t', adr), null],
    ['a requirement the driver lacks', shift('a', { driverSkills: ['C'] }), truck('t', { requirements: ['C', 'ADR'] }), 'requirements'],
    ['a requirement only among the skills, not the driver skills', shift('a', { skills: ['ADR'] }), truck('t', adr), 'requirements'],
    ['required capabilities the driver has', shift('a', { driverSkills: ['cool'] }), truck('t', { requiredCapabilities: ['cool'] }), null],
    ['a required capability the driver lacks', shift('a'), truck('t', { requiredCapabilities: ['cool'] }), 'required-capabilities'],
    ['no guaranteed working time', shift('a', { guaranteed: null }), truck('t'), 'no-guaranteed-time'],
    ['an empty window, whatever the guaranteed time', shift('a', { window: [6, 6], guaranteed: [6, 8] }), truck('t'), 'no-guaranteed-time'],
  ])('%s', (_case, employee, resource, reason) => {
    expect(whyNotCombine(employee, resource)).toBe(reason);
    expect(canCombine(employee, resource)).toBe(reason === null);
  });

  describe('unavailabilities count only over the guaranteed working time', () => {
    const flexible = (unavailable: [number, number][] = []) => shift('a', { window: [6, 16], guaranteed: [8, 12], unavailable });
    it.each([
      ['an employee unavailability over the guaranteed time', flexible([[11, 13]]), truck('t'), 'employee-unavailable'],
      ['an employee unavailability in the window only', flexible([[12, 16]]), truck('t'), null],
      ['an employee unavailability that ends as the guaranteed time starts', flexible([[6, 8]]), truck('t'), null],
      ['a resource unavailability over the guaranteed time', flexible(), truck('t', { unavailable: [[7, 9]] }), 'resource-unavailable'],
      ['a resource unavailability in the window only', flexible(), truck('t', { unavailable: [[13, 20]] }), null],
      ['a resource unavailability on another day', flexible(), truck('t', { unavailable: [[30, 40]] }), null],
    ])('%s', (_case, employee, resource, reason) => {
      expect(whyNotCombine(employee, resource)).toBe(reason);
    });
  });

  it('reports the first broken rule in its order', () => {
    expect(whyNotCombine(shift('a', { guaranteed: null }), truck('t', { type: 'TRAILER', inactive: true }))).toBe('inactive');
  });

  it('lists every broken rule in the same order, for a planner (everyReasonNotToCombine)', () => {
    const pair = [shift('a', { guaranteed: null }), truck('t', { type: 'TRAILER', inactive: true })] as const;
    expect(everyReasonNotToCombine(...pair)).toEqual(['inactive', 'trailer', 'no-guaranteed-time']);
    expect(everyReasonNotToCombine(shift('a'), truck('t'))).toEqual([]);
  });
});

describe('combinationCapabilities: capabilities ∪ required ∪ (skilled ∩ driver skills) ∪ skills, minus cant_do', () => {
  it('unites the four sources', () => {
    const employee = shift('a', { driverSkills: ['C', 'cooling', 'ADR'], skills: ['nl'] });
    const resource = truck('t', { capabilities: ['tail-lift'], requiredCapabilities: ['C'], skilledCapabilities: ['ADR', 'crane'] });
    expect(combinationCapabilities(employee, resource)).toEqual(['ADR', 'C', 'nl', 'tail-lift']);
  });

  it('drops what the resource cannot do, whatever its source', () => {
    const employee = shift('a', { driverSkills: ['ADR'], skills: ['nl', 'forklift'] });
    const resource = truck('t', {
      capabilities: ['tail-lift', 'frozen'],
      skilledCapabilities: ['ADR'],
      cantDo: ['frozen', 'forklift', 'ADR'],
    });
    expect(combinationCapabilities(employee, resource)).toEqual(['nl', 'tail-lift']);
  });

  it('gives no skilled capability to an employee who only has it as a skill', () => {
    expect(combinationCapabilities(shift('a', { skills: ['crane'] }), truck('t', { skilledCapabilities: ['crane'] }))).toEqual(['crane']);
    expect(combinationCapabilities(shift('a', { skills: ['nl'] }), truck('t', { skilledCapabilities: ['crane'] }))).toEqual(['nl']);
  });
});

describe('combinationCost', () => {
  it('is the fixed cost, or 0 without one', () => {
    expect(combinationCost(truck('t', { fixedCost: 12.5 }))).toBe(12.5);
    expect(combinationCost(truck('t'))).toBe(0);
  });
});

describe('transportResourceView', () => {
  const stored = { business_id: 't-1', type: 'TRUCK' as const, inactive: false };

  it('keys a home-based resource by its home base and fills the lists in', () => {
    const view = transportResourceView({ ...stored, home_base: { business_id: 'hb-1' }, costs: { fixed: 3 } }, []);
    expect(view).toEqual({
      id: 't-1',
      type: 'TRUCK',
      inactive: false,
      location: { kind: 'home-base', id: 'hb-1' },
      requirements: [],
      requiredCapabilities: [],
      capabilities: [],
      skilledCapabilities: [],
      cantDo: [],
      costs: { fixed: 3 },
      unavailable: [],
    });
  });

  it('keys an ad-hoc resource by its start location name and sorts its unavailabilities', () => {
    const view = transportResourceView(
      {
        ...stored,
        start_location: { name: 'Port', city: 'Gent', zip_code: '9000', country_code: 'BE' },
        requirements: ['C'],
        cant_do: ['x'],
      },
      [
        { from: '2026-03-02T12:00:00Z', to: '2026-03-02T13:00:00Z' },
        { from: '2026-03-02T01:00:00+01:00', to: '2026-03-02T02:00:00Z' },
      ],
    );
    expect(view).toMatchObject({ location: { kind: 'ad-hoc', name: 'Port' }, requirements: ['C'], cantDo: ['x'] });
    expect(view.unavailable).toEqual([span(0, 2), span(12, 13)]);
  });
});
