/** localStorage: the zone a planner works in outlives the tab, unlike the credentials. */
const KEY = 'rm-board-time-zone';

const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

function isZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat(undefined, { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The zone chosen last in this browser, else the browser's own. */
export function rememberedZone(): string {
  const chosen = localStorage.getItem(KEY);
  return chosen !== null && isZone(chosen) ? chosen : browserZone();
}

export function rememberZone(zone: string): void {
  localStorage.setItem(KEY, zone);
}

/** The zones to choose from, by name: the browser's list leaves out UTC, and aliases (`Etc/UTC`) a browser may call its own. */
export function zoneChoices(current: string): string[] {
  return [...new Set([...Intl.supportedValuesOf('timeZone'), 'UTC', current, browserZone()])].sort();
}
