import { Type, type Static } from '@sinclair/typebox';
import { BUSINESS_ID_PATTERN, BusinessId, Version } from './common.js';
import { entityEvents } from './events.js';
import { ReadOnly } from './shapes.js';

const forecastFields = {
  expected_shifts: Type.Integer({
    minimum: 0,
    maximum: 1_000_000,
    description: 'The number of shifts expected that day at that location: 0 to 1,000,000.',
  }),
  description: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: '1 to 1000 characters.' })),
};

/** The path of a forecast: a calendar day and a location. */
export const ForecastParams = Type.Object(
  {
    date: Type.String({ format: 'date', description: 'A calendar date, YYYY-MM-DD, that exists (no 2026-02-30).' }),
    location: Type.String({
      pattern: BUSINESS_ID_PATTERN,
      minLength: 1,
      maxLength: 512,
      description: `A home base id or an ad-hoc location name. ${BusinessId.description}`,
    }),
  },
  { additionalProperties: false },
);
export type ForecastParams = Static<typeof ForecastParams>;

/** Body of `PUT /resource-overview/{date}/{location}/forecasts`. */
export const ForecastBody = Type.Object(
  { ...forecastFields, date: Type.Optional(ReadOnly), location: Type.Optional(ReadOnly), version: Type.Optional(ReadOnly) },
  { additionalProperties: false },
);
export type ForecastInput = Static<typeof ForecastBody>;

/** What is stored: the path's day and location with the body's fields. */
export const ForecastFields = Type.Object({ ...ForecastParams.properties, ...forecastFields }, { additionalProperties: false });
export type ForecastFields = Static<typeof ForecastFields>;

/** A forecast (experimental): shown in capacity planning, never used in any calculation (spec rule 7). */
export const Forecast = Type.Object({ ...ForecastFields.properties, version: Version }, { additionalProperties: false });
export type Forecast = Static<typeof Forecast>;

/** `forecast.created`, `.updated` and `.deleted` on `rm.home-bases.<tenant>.forecast.*`: the forecast as GET shows it. */
export const FORECAST_EVENTS = entityEvents('home-bases', 'forecast', Forecast);
