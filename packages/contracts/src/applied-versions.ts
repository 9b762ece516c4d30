/**
 * The consumer runner's ledger port (@rm/bus uses it, @rm/store implements it): the highest version
 * of each entity a consumer has applied, so that redeliveries and older events are skipped.
 */
export interface EntityRef {
  tenant: string;
  /** The entity part of the event type (`employee` of `employee.updated`). */
  entity: string;
  entityId: string;
}

export interface EntityVersion extends EntityRef {
  version: number;
}

export interface AppliedVersions {
  /** The applied version of each entity that has one, by `entityRefKey`. */
  read(entities: readonly EntityRef[]): Promise<Map<string, number>>;
  /** Raises each entity's applied version to the one given (never lowers it). */
  record(applied: readonly EntityVersion[]): Promise<void>;
  /** Answers once the ledger's database does: the runner's probe while it waits out an outage. */
  ping(): Promise<void>;
}

export function entityRefKey({ tenant, entity, entityId }: EntityRef): string {
  return `${tenant}|${entity}|${entityId}`;
}
