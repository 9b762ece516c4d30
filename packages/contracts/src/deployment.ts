import { Type, type Static } from '@sinclair/typebox';
import { BusinessId, Cursors, DateTime, dateTimeWith, Duration, Version } from './common.js';
import { entityEvents } from './events.js';
import { HomeBaseRef, NamedAddress, ReadOnly } from './shapes.js';

/** Most transport resources one deployment takes (a tractor and its trailers). */
export const MAX_DEPLOYED_TRANSPORT_RESOURCES = 10;

/** Where a deployment starts: exactly one of `home_base` and `address` (a domain rule). */
export const DeploymentStartLocation = Type.Object(
  { home_base: Type.Optional(HomeBaseRef), address: Type.Optional(NamedAddress) },
  { additionalProperties: false, description: 'Exactly one of home_base and address (address with its name).' },
);

const spanFields = {
  start: Type.Object({ at: DateTime, location: DeploymentStartLocation }, { additionalProperties: false }),
  end: Type.Object({ at: dateTimeWith('After start.at.') }, { additionalProperties: false }),
  total_break_time: Type.Optional(Duration),
};

const transportResourceIds = (about: string) =>
  Type.Array(BusinessId, { minItems: 1, maxItems: MAX_DEPLOYED_TRANSPORT_RESOURCES, uniqueItems: true, description: about });

/** Body of `PUT /deployment/{id}`: an external deployment. Read-only fields of a GET body are ignored. */
export const DeploymentBody = Type.Object(
  {
    employee: BusinessId,
    transport_resources: transportResourceIds(`1 to ${MAX_DEPLOYED_TRANSPORT_RESOURCES} different transport resource ids.`),
    ...spanFields,
    id: Type.Optional(ReadOnly),
    employee_id: Type.Optional(ReadOnly),
    transport_resource_ids: Type.Optional(ReadOnly),
    resource_combination_id: Type.Optional(ReadOnly),
    availability_id: Type.Optional(ReadOnly),
    planning_id: Type.Optional(ReadOnly),
    version: Type.Optional(ReadOnly),
  },
  { additionalProperties: false },
);
export type DeploymentInput = Static<typeof DeploymentBody>;

const deploymentFields = {
  employee_id: BusinessId,
  transport_resource_ids: transportResourceIds('The transport resources it takes.'),
  ...spanFields,
  resource_combination_id: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
  availability_id: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
  planning_id: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'Only on deployments of a released route.' })),
};

/** What is stored and published. */
export const DeploymentFields = Type.Object(deploymentFields, { additionalProperties: false });
export type DeploymentFields = Static<typeof DeploymentFields>;

/** A deployment (experimental): external (managed through the API) or bound to a released route (`planning_id`). */
export const Deployment = Type.Object({ id: BusinessId, ...deploymentFields, version: Version }, { additionalProperties: false });
export type Deployment = Static<typeof Deployment>;

/** `deployment.created`, `.updated`, `.deleted` on `rm.deployments.<tenant>.deployment.*`. */
export const DEPLOYMENT_EVENTS = entityEvents('deployments', 'deployment', Deployment);

export const DeploymentPage = Type.Object({
  deployments: Type.Array(Deployment, {
    description: 'At most `limit` deployments, external and planning-bound (1 to 1000, default 100).',
  }),
  cursors: Cursors,
});

export const DeploymentParams = Type.Object({ id: BusinessId }, { additionalProperties: false });
export type DeploymentParams = Static<typeof DeploymentParams>;
