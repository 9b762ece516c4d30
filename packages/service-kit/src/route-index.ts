import FindMyWay from 'find-my-way';
import type { RouteOptions } from 'fastify';

/** Which methods each path takes, for the 405 answer fastify does not give (it answers 404). */
export interface RouteIndex {
  /** An `onRoute` hook: indexes the route's methods at its URL, HEAD routes included. */
  record(route: RouteOptions): void;
  /** The methods some route takes at this request URL, sorted; none when no route matches the path. */
  allowedMethods(url: string): string[];
}

/**
 * A second find-my-way router (the one fastify routes with) holding every route without its
 * handler, so that a path can be looked up per method with fastify's own matching rules.
 */
export function createRouteIndex({ maxParamLength }: { maxParamLength: number }): RouteIndex {
  const router = FindMyWay({ maxParamLength });
  const methods = new Set<FindMyWay.HTTPMethod>();
  const noHandler = () => {};
  return {
    record(route) {
      // fastify has upper-cased them by now; its type also allows lower case.
      for (const method of [route.method].flat() as FindMyWay.HTTPMethod[]) {
        // The same method and path may be registered again under other constraints.
        if (router.hasRoute(method, route.url)) continue;
        router.on(method, route.url, noHandler);
        methods.add(method);
      }
    },
    allowedMethods(url) {
      return [...methods].filter((method) => router.find(method, url) !== null).sort();
    },
  };
}
