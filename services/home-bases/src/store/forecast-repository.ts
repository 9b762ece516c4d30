import { FORECAST_EVENTS, type Forecast, type ForecastFields } from '@rm/contracts';
import type { Resource, ResourceCollection, ResourceId, Store } from '@rm/store';

export type ForecastRepository = ResourceCollection<ForecastFields>;

/** Forecasts of every tenant, one per day and location; each write carries its event. */
export function createForecastRepository(store: Store): ForecastRepository {
  return store.collection<ForecastFields>({ name: 'forecasts', events: FORECAST_EVENTS, represent: toForecast });
}

/** The stored id of the forecast of a day at a location: the date has a fixed length, so the key is unique. */
export function forecastId(tenant: string, { date, location }: { date: string; location: string }): ResourceId {
  return { tenant, key: `${date}_${location}` };
}

/** The API representation, also the data of its events. */
export function toForecast(resource: Resource<ForecastFields>): Forecast {
  return { ...resource.body, version: resource.version };
}
