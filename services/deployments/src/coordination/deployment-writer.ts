import { randomUUID } from 'node:crypto';
import { EMPLOYEE_EVENTS, TRANSPORT_RESOURCE_EVENTS, type DeploymentFields, type Violation } from '@rm/contracts';
import { Conflict, ValidationProblem, type Logger } from '@rm/service-kit';
import { ignoreNotFound, type IfMatch, type Resource, type ResourceId, type WriteResult } from '@rm/store';
import { deploymentSpan } from '../domain/deployment.js';
import type { CalendarKey, Calendars, CommittedSpan } from '../store/calendars.js';
import type { DeploymentRepository } from '../store/deployment-repository.js';
import type { ResourceChecks } from './resource-checks.js';
import type { OwnerCaller } from './resource-owners.js';

/**
 * Writes of external deployments that keep every resource's deployments apart (DESIGN §8), across
 * the employee and the transport resources one deployment takes, and across replicas. The design
 * (README "No overlap"): a write first holds a pending entry on the calendar of each resource it
 * takes, in a fixed order, and only where no other deployment holds an overlapping one (409 naming
 * it otherwise); then commits the deployment; then, whatever happened, reconciles each calendar it
 * touched with what is committed. A pending entry left by a crash is reconciled by the next write
 * that meets it once stale, so a crash never leaves a resource half reserved for good.
 */
export interface DeploymentWriter {
  /**
   * An external deployment: 400 if it names an employee or transport resource that does not exist (its
   * owner is asked with the caller's token), 409 if it overlaps another on a resource, or if it is a
   * released route's.
   */
  put(caller: OwnerCaller, id: ResourceId, fields: DeploymentFields, options: { ifMatch?: IfMatch }): Promise<WriteResult<DeploymentFields>>;
  /** An external deployment (409 for a released route's). */
  remove(id: ResourceId, options: { ifMatch?: IfMatch }): Promise<void>;
  /** A released route's deployment: the planning platform has decided it, so it is held without a check. */
  putPlanned(id: ResourceId, fields: DeploymentFields): Promise<void>;
  removePlanned(id: ResourceId): Promise<void>;
}

/** The calendars of the resources a deployment takes, in the order every write takes them in. */
export function calendarKeys(tenant: string, deployment: DeploymentFields): CalendarKey[] {
  const keys: CalendarKey[] = [
    { tenant, entity: 'employee', id: deployment.employee_id },
    ...deployment.transport_resource_ids.map((id): CalendarKey => ({ tenant, entity: 'transport-resource', id })),
  ];
  const order = (key: CalendarKey) => `${key.entity}|${key.id}`;
  // by code unit, the same on every replica whatever its locale
  return keys.sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
}

/** What a deployment has committed on a resource: its span if its stored state takes the resource. */
export function committedSpanOf(deployments: DeploymentRepository): CommittedSpan {
  return async (key, deployment) => {
    const found = await deployments.get({ tenant: key.tenant, key: deployment });
    if (found === null) return undefined;
    const takes = calendarKeys(key.tenant, found.body).some((taken) => taken.entity === key.entity && taken.id === key.id);
    return takes ? deploymentSpan(found.body) : undefined;
  };
}

export interface DeploymentWriterParts {
  deployments: DeploymentRepository;
  calendars: Calendars;
  resources: ResourceChecks;
  logger: Logger;
}

/** Those of `ids` of `entity` that do not exist, by one of ResourceChecks' two ways of asking. */
type Missing = (entity: string, ids: readonly string[]) => Promise<Set<string>>;

export function createDeploymentWriter({ deployments, calendars, resources, logger }: DeploymentWriterParts): DeploymentWriter {
  /** The employee and transport resources an external deployment names that are `missing` (400 naming each). */
  async function unknownResources(fields: DeploymentFields, missing: Missing): Promise<Violation[]> {
    const [employee, trucks] = await Promise.all([
      missing(EMPLOYEE_EVENTS.entity, [fields.employee_id]),
      missing(TRANSPORT_RESOURCE_EVENTS.entity, fields.transport_resource_ids),
    ]);
    const violations: Violation[] = [];
    if (employee.size > 0) violations.push({ field: 'employee', message: `employee '${fields.employee_id}' does not exist` });
    for (const [index, id] of fields.transport_resource_ids.entries()) {
      if (trucks.has(id)) violations.push({ field: `transport_resources[${index}]`, message: `transport resource '${id}' does not exist` });
    }
    return violations;
  }

  /** Refuses to change a deployment of a released route (spec rule 9). */
  function assertExternal(current: Resource<DeploymentFields> | null): void {
    const planningId = current?.body.planning_id;
    if (planningId === undefined) return;
    throw new Conflict(
      `deployment '${current!.key}' belongs to a released route: it changes only by unreleasing the route with planning_id '${planningId}'`,
      { planning_id: planningId },
    );
  }

  /** Runs `write`, then reconciles every calendar it may have touched with what is committed. */
  async function reconcileAfter<T>(id: ResourceId, touched: CalendarKey[], writeId: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } finally {
      for (const key of touched) {
        // a failure here leaves a pending entry, which the next write that meets it reconciles once stale
        await calendars.reconcile(key, id.key, writeId).catch((err: unknown) => {
          logger.warn({ err, key }, 'calendar left to reconcile later');
        });
      }
    }
  }

  /** `check`: an external deployment's write, checked for its caller; false for a released route's. */
  async function write(id: ResourceId, fields: DeploymentFields, options: { ifMatch?: IfMatch; check: { caller: OwnerCaller } | false }) {
    const current = await deployments.get(id);
    const { check } = options;
    if (check !== false) {
      assertExternal(current);
      const unknown = await unknownResources(fields, (entity, ids) => resources.missing(check.caller, id.tenant, entity, ids));
      if (unknown.length > 0) throw new ValidationProblem(unknown);
    }
    const writeId = randomUUID();
    const keys = calendarKeys(id.tenant, fields);
    const touched = unique([...keys, ...(current === null ? [] : calendarKeys(id.tenant, current.body))]);
    return reconcileAfter(id, touched, writeId, async () => {
      const span = deploymentSpan(fields);
      for (const key of keys) {
        const other = await calendars.hold(key, id.key, writeId, span, { check: check !== false });
        if (other !== undefined) {
          const detail = `deployment '${id.key}' would overlap deployment '${other}' of ${key.entity} '${key.id}'`;
          throw new Conflict(detail, { conflicting_id: other });
        }
      }
      return deployments.put(id, fields, options.ifMatch === undefined ? {} : { ifMatch: options.ifMatch });
    });
  }

  async function erase(id: ResourceId, options: { ifMatch?: IfMatch; external: boolean }): Promise<void> {
    const current = await deployments.get(id);
    if (options.external) assertExternal(current);
    const writeId = randomUUID();
    const keys = current === null ? [] : calendarKeys(id.tenant, current.body);
    await reconcileAfter(id, keys, writeId, async () => {
      // pending entries first, so that a crash after the removal leaves them to be reconciled
      for (const key of keys) await calendars.hold(key, id.key, writeId, deploymentSpan(current!.body), { check: false });
      await deployments.remove(id, options.ifMatch === undefined ? {} : { ifMatch: options.ifMatch });
    });
  }

  return {
    async put(caller, id, fields, { ifMatch }) {
      const written = await write(id, fields, { ...(ifMatch === undefined ? {} : { ifMatch }), check: { caller } });
      // A resource deleted while this was written, after its deployments were removed (its event is
      // recorded first, see KnownResources): this one goes too. This copy only, never the owner (see
      // ResourceChecks.missingHere): the first check recorded what the owner said.
      const gone = await unknownResources(fields, (entity, ids) => resources.missingHere(id.tenant, entity, ids));
      if (gone.length === 0) return written;
      // the delete's own removal may have taken it already
      await erase(id, { external: true }).catch(ignoreNotFound);
      throw new ValidationProblem(gone);
    },
    remove: (id, { ifMatch }) => erase(id, { ...(ifMatch === undefined ? {} : { ifMatch }), external: true }),
    putPlanned: async (id, fields) => void (await write(id, fields, { check: false })),
    removePlanned: (id) => erase(id, { external: false }),
  };
}

function unique(keys: CalendarKey[]): CalendarKey[] {
  return [...new Map(keys.map((key) => [`${key.entity}|${key.id}`, key])).values()];
}
