import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { BASE, signIn, type GatewayHarness } from '../helpers.js';
import type { Stack } from '../stack.js';

// Read-your-writes across services (issue 28), end to end through the gateway: an employee or a
// transport resource may be named in a write of the deployments service the moment it is created at
// its owner, though the owner's event reaches the deployments service only later (it asks the owner
// about one it has no event of).

const PAIRS = 100;
const START_LOCATION = { name: 'Depot Gent', address_line: 'Dok Noord 1', city: 'Gent', zip_code: '9000', country_code: 'BE' };
const EMPLOYEE = { name: { first_name: 'Ada', last_name: 'Peeters' }, start_location: START_LOCATION };
const TRUCK = { type: 'TRUCK', start_location: START_LOCATION };

let gateway: GatewayHarness;
let token: string;

function put(path: string, body: object): Promise<Response> {
  return gateway.fetch(`${BASE}${path}`, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** A write of the deployments service naming an employee or transport resource created at its owner the moment before. */
export function describeReadYourWrites(stack: () => Stack): void {
  describe('a write naming what was created the moment before', () => {
    beforeAll(async () => {
      gateway = stack().gateway;
      ({ token } = await signIn(gateway));
    });

    it(`succeeds every time: ${PAIRS} employees with an actual, and ${PAIRS} transport resources with a deployment`, { timeout: 180_000 }, async () => {
      const failures: string[] = [];
      /** PUTs `body` at `path`, expecting 200 or 201; a failure is counted, and the run goes on. */
      const written = async (path: string, body: object) => {
        const response = await put(path, body);
        const text = await response.text();
        expect.soft(response.status, `PUT ${path}: ${text}`).toBeOneOf([200, 201]);
        if (response.status !== 200 && response.status !== 201) failures.push(`PUT ${path}: ${response.status} ${text}`);
      };

      for (let n = 0; n < PAIRS; n += 1) {
        const employee = `e-${randomUUID()}`;
        const truck = `t-${randomUUID()}`;
        await written(`/employee/${employee}`, EMPLOYEE);
        await written(`/means/${employee}/actual/${randomUUID()}`, { start: '2024-03-01T08:00:00Z', end: '2024-03-01T16:00:00Z', work_time: 'PT7H30M' });
        await written(`/transport-resource/${truck}`, TRUCK);
        await written(`/deployment/${randomUUID()}`, {
          employee,
          transport_resources: [truck],
          start: { at: '2031-05-05T06:00:00Z', location: { address: START_LOCATION } },
          end: { at: '2031-05-05T14:00:00Z' },
        });
      }
      expect(failures).toHaveLength(0);
    });
  });
}
