import { describeIfMatchRaces } from '@rm/testkit/suites/if-match-races';
import { topLevel } from '@rm/testkit/suites/tenant-service';
import { homeBaseBody, startTenantHomeBases } from './helpers.js';

describeIfMatchRaces({
  start: startTenantHomeBases,
  resources: [
    {
      entity: 'home-base',
      place: async () => ({ ...topLevel('/home-base', 'hb'), shown: (id, body, version) => ({ business_id: id, ...body, version }) }),
      variant: (writer) => homeBaseBody({ plan_group: `writer-${writer}` }),
    },
  ],
});
