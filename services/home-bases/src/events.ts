import { HOME_BASE_EVENTS } from '@rm/contracts';

/**
 * What the home-bases service publishes, on its stream `RM_HOME_BASES`, on
 * `rm.home-bases.<tenant>.home-base.<created|updated|deleted>` (HOME_BASE_EVENTS): the home base as
 * GET shows it, address included. It consumes nothing yet.
 */
export const SERVICE_NAME = HOME_BASE_EVENTS.service;
