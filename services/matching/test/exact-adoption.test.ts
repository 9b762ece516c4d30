import { describe, expect, it } from 'vitest';
import type { Combination } from '../src/domain/combination.js';
import { combinationsOf, solveAll } from '../src/domain/exact.js';
import { objectiveOf } from '../src/domain/objective.js';
import { TenantMatching, type ExactInputs, type Input } from '../src/domain/tenant-matching.js';
import { feasibilityViolations } from '../src/testing/yardsticks.js';
import { availability, BEFORE_EVERYTHING, behindCase, deployment, homeBase, pairs, resource, shiftOf, tenantOf } from './tenant-inputs.js';

/** The live combinations and what they are held against: every snapshot and every resource the inputs name. */
function stateOf(tenant: TenantMatching, inputs: ExactInputs) {
  const combinations = tenant.availabilityIds().flatMap((availabilityId): Combination[] => {
    const combination = tenant.combination(availabilityId);
    const [transportResourceId] = combination?.transportResourceIds ?? [];
    if (combination === undefined || combination.deploymentId !== undefined || transportResourceId === undefined) return [];
    return [{ availabilityId, employeeId: combination.employeeId, transportResourceId }];
  });
  return { snapshots: inputs.shifts, resources: inputs.resources, frozen: inputs.frozen, combinations };
}

/** The exact re-solve of the tenant's inputs, in-process (the resolver runs the same in a worker thread). */
async function resolveExactly(tenant: TenantMatching) {
  const inputs = tenant.exactInputs();
  const { assignment } = await solveAll(inputs.shifts, inputs.resources, { frozen: inputs.frozen, existing: inputs.existing });
  return { inputs, assignment };
}

describe('adopting an exact re-solve', () => {
  it('brings the tenant to the optimum where the incremental matcher fell short, changing only what it must', async () => {
    const tenant = tenantOf(behindCase());
    expect(pairs(tenant)).toEqual({ s1: 'r0', s3: 'r1', s5: 'r1' });

    const { inputs, assignment } = await resolveExactly(tenant);
    expect(inputs.existing).toEqual(new Map([['s1', 'r0'], ['s3', 'r1'], ['s5', 'r1']]));
    const touched = tenant.adopt(inputs, assignment);

    expect(pairs(tenant)).toEqual({ s2: 'r0', s3: 'r1', s4: 'r1', s5: 'r0' });
    // s3 keeps its combination: of the optima, the one that changes fewest
    expect(touched).toEqual({ snapshots: new Set(), combinations: new Set(['s1', 's2', 's4', 's5']) });
    const state = stateOf(tenant, inputs);
    expect(feasibilityViolations(state)).toEqual([]);
    expect(objectiveOf(state)).toEqual(objectiveOf({ ...state, combinations: combinationsOf(assignment, inputs.shifts) }));
  });

  it('offers a component again only once it changed after the adoption', async () => {
    const tenant = tenantOf([...behindCase('hb'), ...behindCase('hb2', 'x')]);
    const { inputs, assignment } = await resolveExactly(tenant);
    expect(inputs.shifts).toHaveLength(10);
    tenant.adopt(inputs, assignment);
    expect(tenant.exactInputs().shifts).toEqual([]);

    for (const one of shiftOf('', 'hb', 's6', [20, 22], false, [])) tenant.apply(one, BEFORE_EVERYTHING);
    const again = tenant.exactInputs();
    expect(again.shifts.map((shift) => shift.availabilityId).sort()).toEqual(['s1', 's2', 's3', 's4', 's5', 's6']);
    expect(again.resources.map((one) => one.id).sort()).toEqual(['r0', 'r1']);
  });

  it('gives the changed components in parts of at most so many shifts, never splitting one, each adopted on its own', async () => {
    const tenant = tenantOf([...behindCase('hb'), ...behindCase('hb2', 'x'), ...behindCase('hb3', 'y')]);
    const whole = tenant.exactInputs();
    const parts = tenant.exactInputParts(10);
    expect(parts.map((part) => part.shifts.length)).toEqual([10, 5]);
    expect(parts.flatMap((part) => part.shifts)).toEqual(whole.shifts);
    expect(tenant.exactInputParts(3).map((part) => part.shifts.length)).toEqual([5, 5, 5]);
    for (const part of parts) {
      const { assignment } = await solveAll(part.shifts, part.resources, { frozen: part.frozen, existing: part.existing });
      tenant.adopt(part, assignment);
    }
    expect(tenant.exactInputs().shifts).toEqual([]);
    const { assignment } = await solveAll(whole.shifts, whole.resources, { frozen: whole.frozen, existing: whole.existing });
    expect(objectiveOf(stateOf(tenant, whole))).toEqual(objectiveOf({ ...stateOf(tenant, whole), combinations: combinationsOf(assignment, whole.shifts) }));
  });

  it('leaves out a component with an input changed while it was solved, and adopts the others', async () => {
    const tenant = tenantOf([...behindCase('hb'), ...behindCase('hb2', 'x')]);
    const { inputs, assignment } = await resolveExactly(tenant);
    // while the solve runs, r1 gains a capability: the assignment would still fit, but it was made for other inputs
    tenant.apply({ ...resource('r1', 'hb', { capabilities: ['crane'] }), version: 2 }, BEFORE_EVERYTHING);

    const touched = tenant.adopt(inputs, assignment);

    expect(touched.combinations).toEqual(new Set(['xs1', 'xs2', 'xs4', 'xs5']));
    expect(pairs(tenant)).toEqual({ s1: 'r0', s3: 'r1', s5: 'r1', xs2: 'xr0', xs3: 'xr1', xs4: 'xr1', xs5: 'xr0' });
    // the changed component comes next time
    const next = tenant.exactInputs();
    expect(next.shifts.map((shift) => shift.availabilityId).sort()).toEqual(['s1', 's2', 's3', 's4', 's5']);
  });

  it('never touches frozen combinations, and drops a component that a deployment reached while it was solved', async () => {
    // ef's shift is held on r1 from 10:00 to 14:00 by a planning-bound deployment; s6 must keep off r1 then
    const frozenOnes = [...shiftOf('', 'hb', 'f1', [10, 14], true, []), deployment('d1', 'e-f1', ['r1'], [10, 14], 'f1')];
    const tenant = tenantOf([...behindCase(), ...frozenOnes, ...shiftOf('', 'hb', 's6', [11, 13], false, ['A'])]);
    expect(pairs(tenant)).toMatchObject({ f1: 'r1 (d1)', s6: 'r0' });

    const { inputs, assignment } = await resolveExactly(tenant);
    expect(inputs.frozen.map((one) => one.id)).toEqual(['d1']);
    const touched = tenant.adopt(inputs, assignment);

    expect(touched.combinations.has('f1')).toBe(false);
    expect(pairs(tenant)).toEqual({ f1: 'r1 (d1)', s2: 'r0', s3: 'r1', s4: 'r1', s5: 'r0', s6: 'r0' });

    // a deployment that takes r0 from 1:00 to 6:00 comes while the next solve runs: that solve is not adopted
    for (const one of shiftOf('', 'hb', 's7', [0, 1], false, [])) tenant.apply(one, BEFORE_EVERYTHING);
    const stale = await resolveExactly(tenant);
    tenant.apply(deployment('d2', 'e-ghost', ['r0'], [1, 6], 'ghost'), BEFORE_EVERYTHING);
    const live = pairs(tenant);
    expect(tenant.adopt(stale.inputs, stale.assignment).combinations).toEqual(new Set());
    expect(pairs(tenant)).toEqual(live);
    expect(live).not.toHaveProperty('s5', 'r0');
  });

  it('continues from the adopted assignment with the events that follow', async () => {
    const tenant = tenantOf(behindCase());
    const { inputs, assignment } = await resolveExactly(tenant);
    tenant.adopt(inputs, assignment);

    // s5 was moved to r0 by the adoption: its delete frees r0 from 1:00 to 5:00, where s1 still does not fit
    const touched = tenant.apply({ ...availability('e-s5', 's5', [1, 5], true), version: 2, deleted: true }, BEFORE_EVERYTHING);
    expect(touched.combinations).toEqual(new Set(['s5']));
    expect(pairs(tenant)).toEqual({ s2: 'r0', s3: 'r1', s4: 'r1' });
    // a new A-driver from 1:00 to 4:00 takes the room it left, or the room before s4 on r1
    for (const one of shiftOf('', 'hb', 's6', [1, 4], false, ['A'])) tenant.apply(one, BEFORE_EVERYTHING);
    expect(['r0', 'r1']).toContain(pairs(tenant)['s6']);
    const state = stateOf(tenant, tenant.exactInputs());
    expect(feasibilityViolations(state)).toEqual([]);
    expect(objectiveOf(state)).toMatchObject({ matched: 4, mandatory: 2 });
  });

  it('changes nothing when the assignment is no better than what holds, or does not fit', () => {
    const tenant = tenantOf([
      homeBase('hb'),
      resource('r1', 'hb'),
      ...shiftOf('', 'hb', 'a', [6, 14], false, []),
      ...shiftOf('', 'hb', 'b', [8, 12], false, []),
    ]);
    expect(pairs(tenant)).toEqual({ a: 'r1' });
    const inputs = tenant.exactInputs();
    // as good, but a change: fewest changes ranks last in the objective
    expect(tenant.adopt(inputs, new Map([['b', 'r1']])).combinations).toEqual(new Set());
    // more matched, but both on r1 at once
    expect(tenant.adopt(inputs, new Map([['a', 'r1'], ['b', 'r1']])).combinations).toEqual(new Set());
    expect(pairs(tenant)).toEqual({ a: 'r1' });
  });

  it('ignores inputs that another instance gave out (a tenant reloaded since)', async () => {
    const { inputs, assignment } = await resolveExactly(tenantOf(behindCase()));
    const reloaded = tenantOf(behindCase());
    expect(reloaded.adopt(inputs, assignment).combinations).toEqual(new Set());
    expect(pairs(reloaded)).toEqual({ s1: 'r0', s3: 'r1', s5: 'r1' });
  });
});
