import { createClient, type ApiClient } from '@rm/client';

/** Where the gateway serves the API and its tokens, as the page names them (board-page.ts in the gateway). */
export interface Endpoints {
  baseUrl: string;
  tokenUrl: string;
}

export interface Credentials {
  clientId: string;
  clientSecret: string;
}

/** sessionStorage: the browser forgets it when the tab closes; nothing is kept beyond the session. */
const KEY = 'rm-board-credentials';

export function rememberedCredentials(): Credentials | undefined {
  const text = sessionStorage.getItem(KEY);
  return text === null ? undefined : (JSON.parse(text) as Credentials);
}

export function remember(credentials: Credentials): void {
  sessionStorage.setItem(KEY, JSON.stringify(credentials));
}

export function forget(): void {
  sessionStorage.removeItem(KEY);
}

/** The typed client for the tenant's credentials: it gets and renews its tokens itself. */
export function clientFor(endpoints: Endpoints, credentials: Credentials): ApiClient {
  // the secret in the form: a refused Basic login would open the browser's own login dialog
  return createClient({ ...endpoints, ...credentials, retries: 2, clientAuthentication: 'client_secret_post' });
}

/** Every item of an async iterable, as an array. */
export async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const found: T[] = [];
  for await (const item of items) found.push(item);
  return found;
}
