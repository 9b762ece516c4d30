import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { EmployeeView } from './employee-view.js';
import { followChanges } from './live.js';
import { LocationView } from './location-view.js';
import { clientFor, forget, remember, rememberedCredentials, type Credentials, type Endpoints } from './session.js';
import { SignIn } from './sign-in.js';
import { today } from './timeline.js';
import { rememberedZone, rememberZone, zoneChoices } from './time-zone.js';

type View = 'location' | 'employee';

function App({ endpoints }: { endpoints: Endpoints }) {
  const [credentials, setCredentials] = useState<Credentials | undefined>(rememberedCredentials);
  const rm = useMemo(() => (credentials === undefined ? undefined : clientFor(endpoints, credentials)), [credentials]);
  const [view, setView] = useState<View>('location');
  const [zone, setZone] = useState(rememberedZone);
  const [day, setDay] = useState(() => today(zone));
  const zones = useMemo(() => zoneChoices(zone), [zone]);
  const [days, setDays] = useState(1);
  const [revision, setRevision] = useState(0);
  const [feed, setFeed] = useState<'connecting' | 'live' | 'reconnecting'>('connecting');

  useEffect(() => {
    if (rm === undefined) return undefined;
    setFeed('connecting');
    return followChanges(rm, () => setRevision((count) => count + 1), (open) => setFeed(open ? 'live' : 'reconnecting'));
  }, [rm]);

  async function signIn(offered: Credentials): Promise<string | undefined> {
    try {
      await clientFor(endpoints, offered).ping();
    } catch (error) {
      return `Sign-in failed: ${error instanceof Error ? error.message : String(error)}`;
    }
    remember(offered);
    setCredentials(offered);
    return undefined;
  }

  return (
    <>
      <header>
        <h1>Planner’s board</h1>
        {rm !== undefined && (
          <>
            <span class={`live ${feed === 'live' ? 'on' : 'off'}`} role="status">
              {{ connecting: 'Connecting…', live: 'Live', reconnecting: 'Reconnecting…' }[feed]}
            </span>
            <span class="tenant">{credentials?.clientId}</span>
            <button
              type="button"
              onClick={() => {
                forget();
                setCredentials(undefined);
              }}
            >
              Sign out
            </button>
          </>
        )}
      </header>
      <main>
        {rm === undefined ? (
          <SignIn onSignIn={signIn} />
        ) : (
          <>
            <nav class="toolbar" aria-label="Board">
              <div role="tablist" aria-label="View">
                {(['location', 'employee'] as const).map((each) => (
                  <button type="button" role="tab" aria-selected={view === each} key={each} onClick={() => setView(each)}>
                    {each === 'location' ? 'Location' : 'Employee'}
                  </button>
                ))}
              </div>
              <label>
                Day <input type="date" value={day} onInput={(event) => setDay((event.target as HTMLInputElement).value || today(zone))} />
              </label>
              <label>
                Span{' '}
                <select value={days} onChange={(event) => setDays(Number((event.target as HTMLSelectElement).value))}>
                  <option value={1}>one day</option>
                  <option value={7}>one week</option>
                </select>
              </label>
              <label>
                Time zone{' '}
                <select
                  value={zone}
                  onChange={(event) => {
                    const chosen = (event.target as HTMLSelectElement).value;
                    rememberZone(chosen);
                    setZone(chosen);
                  }}
                >
                  {zones.map((each) => (
                    <option value={each} key={each}>
                      {each}
                    </option>
                  ))}
                </select>
              </label>
            </nav>
            {view === 'location' ? <LocationView rm={rm} day={day} days={days} zone={zone} revision={revision} /> : <EmployeeView rm={rm} day={day} days={days} zone={zone} revision={revision} />}
          </>
        )}
      </main>
    </>
  );
}

const root = document.getElementById('board') as HTMLElement;
render(<App endpoints={{ baseUrl: root.dataset['baseUrl'] ?? '', tokenUrl: root.dataset['tokenUrl'] ?? '' }} />, root);
