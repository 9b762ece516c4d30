import { randomBytes } from 'node:crypto';
import { DEVELOPMENT_ADMIN, developmentAuthorization } from '@rm/nats-access';

/** The test run's unrestricted NATS user: tests that inspect streams or publish as anyone connect as it. */
export const TEST_NATS_ADMIN = DEVELOPMENT_ADMIN;

/**
 * The password of every NATS user in a test run: made once per run (RM_TEST_NATS_PASSWORD, which the
 * run's workers inherit) and held only by the run's own loopback servers.
 */
export function testNatsPassword(): string {
  process.env.RM_TEST_NATS_PASSWORD ??= randomBytes(18).toString('base64url');
  return process.env.RM_TEST_NATS_PASSWORD;
}

/** The authorization of every nats-server a test starts: each service's user as in production, and the admin. */
export function testNatsAuthorization(): string {
  return developmentAuthorization(testNatsPassword());
}

/** Connection options of the test admin. */
export function testNatsAdmin(): { user: string; pass: string } {
  return { user: TEST_NATS_ADMIN, pass: testNatsPassword() };
}
