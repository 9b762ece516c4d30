import type { FastifyPluginAsync } from 'fastify';
import { Forecast, ForecastBody, ForecastParams, Problem, type ForecastInput, type ForecastParams as Params } from '@rm/contracts';
import { NotFound, parseIfMatch, PreconditionFailed, replyDeleted, replyRead, replyWritten, resourceUrl } from '@rm/service-kit';
import { PreconditionFailedError, ResourceNotFoundError } from '@rm/store';
import { forecastId, toForecast, type ForecastRepository } from '../store/forecast-repository.js';

export interface ForecastRoutesOptions {
  forecasts: ForecastRepository;
}

const PATH = '/resource-overview/:date/:location/forecasts';

const nameOf = ({ date, location }: Params) => `the forecast for '${location}' on ${date}`;
const noForecast = (params: Params) => new NotFound(`there is no forecast for '${params.location}' on ${params.date}`);

/** Runs a write, naming the forecast in its problems by day and location, never by the stored key. */
async function namedByPath<T>(params: Params, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof ResourceNotFoundError) throw noForecast(params);
    if (error instanceof PreconditionFailedError) {
      throw new PreconditionFailed(
        error.current === undefined
          ? `If-Match given, but there is no forecast for '${params.location}' on ${params.date}`
          : `If-Match does not match the current version of ${nameOf(params)} (W/"${error.current}")`,
      );
    }
    throw error;
  }
}

/**
 * Forecasts (experimental): the expected number of shifts on a day at a location, for display in
 * capacity planning only (spec rule 7). PUT creates or replaces, GET reads, DELETE removes.
 */
export const forecastRoutes: FastifyPluginAsync<ForecastRoutesOptions> = async (app, { forecasts }) => {
  app.put<{ Params: Params; Body: ForecastInput }>(
    PATH,
    { schema: { params: ForecastParams, body: ForecastBody, response: { 200: Forecast, 201: Forecast, 400: Problem, 412: Problem } } },
    async (request, reply) => {
      const { date, location } = request.params;
      const { expected_shifts, description } = request.body;
      const fields = { date, location, expected_shifts, ...(description === undefined ? {} : { description }) };
      const { resource, created } = await namedByPath(request.params, () =>
        forecasts.put(forecastId(request.auth.tenant, request.params), fields, { ifMatch: parseIfMatch(request.headers['if-match']) }),
      );
      return replyWritten(reply, {
        status: created ? 201 : 200,
        body: toForecast(resource),
        version: resource.version,
        location: resourceUrl(request, `/resource-overview/${date}/${location}/forecasts`),
      });
    },
  );

  app.get<{ Params: Params }>(
    PATH,
    { schema: { params: ForecastParams, response: { 200: Forecast, 400: Problem, 404: Problem } } },
    async (request, reply) => {
      const found = await forecasts.get(forecastId(request.auth.tenant, request.params));
      if (found === null) throw noForecast(request.params);
      return replyRead(reply, { body: toForecast(found), version: found.version });
    },
  );

  app.delete<{ Params: Params }>(
    PATH,
    { schema: { params: ForecastParams, response: { 400: Problem, 404: Problem, 412: Problem } } },
    async (request, reply) => {
      await namedByPath(request.params, () =>
        forecasts.remove(forecastId(request.auth.tenant, request.params), { ifMatch: parseIfMatch(request.headers['if-match']) }),
      );
      return replyDeleted(reply);
    },
  );
};
