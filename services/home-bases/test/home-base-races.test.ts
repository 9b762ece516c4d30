import { describeIfMatchRaces } from '@rm/testkit/suites/if-match-races';
import { startTenantService, topLevel } from '@rm/testkit/suites/tenant-service';
import { homeBaseBody, recordTenantEvents, startHomeBases } from './helpers.js';

describeIfMatchRaces({
  start: () => startTenantService({ service: 'home-bases', start: startHomeBases, record: recordTenantEvents, sentinel: { path: '/home-base', body: homeBaseBody() } }),
  resources: [
    {
      entity: 'home-base',
      place: async () => ({ ...topLevel('/home-base', 'hb'), shown: (id, body, version) => ({ business_id: id, ...body, version }) }),
      variant: (writer) => homeBaseBody({ plan_group: `writer-${writer}` }),
    },
  ],
});
