import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyPluginAsync } from 'fastify';
import { forwardedPrefixOf, NotFound, publicOrigin } from '@rm/service-kit';
import { DOCS_CONTENT_SECURITY_POLICY, DOCS_INIT_SCRIPT, docsPage } from '../docs/docs-page.js';
import { gettingStartedGuide, type GuideOptions } from '../docs/guide.js';
import type { createApiDocument } from '../openapi/api-document.js';
import { TOKEN_PATH } from './token.routes.js';

export interface DocsRoutesOptions {
  apiDocument: ReturnType<typeof createApiDocument>;
  basePath: string;
  /** What the guide tells of the gateway's limits, as configured. */
  limits: Pick<GuideOptions, 'bodyLimit' | 'tokenRequestsPerIp' | 'tokenRequestsPerClient'>;
}

/** swagger-ui's files, served by the gateway itself with the page's own script, and no online validator: the docs work without internet access. */
const ASSETS = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
} as const;

/** `{base_url}/openapi.json` (the whole v1 API) and `/docs`, without a token: they describe, they grant nothing. */
export const docsRoutes: FastifyPluginAsync<DocsRoutesOptions> = async (app, { apiDocument, basePath, limits }) => {
  const assetDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  // swagger-ui's files change with its version, a day's cache is fine; the gateway's own with each release
  const swaggerUi = await Promise.all(
    Object.entries(ASSETS).map(async ([name, type]) => [name, { type, content: await readFile(join(assetDir, name)), cache: 'public, max-age=86400' }] as const),
  );
  const assets = new Map<string, { type: string; content: Buffer | string; cache: string }>([
    ...swaggerUi,
    ['docs-init.js', { type: 'text/javascript; charset=utf-8', content: DOCS_INIT_SCRIPT, cache: 'no-cache' }],
  ]);

  // Built for the caller's view of the gateway (trusted X-Forwarded-*, else Host): never cached by others.
  app.get(`${basePath}/openapi.json`, async (request, reply) => {
    reply.header('Cache-Control', 'private, no-cache');
    return apiDocument.document(publicOrigin(request));
  });

  // Built for the caller's view too: the guide's examples name the origin and prefix the caller reached.
  app.get('/docs', async (request, reply) => {
    const prefix = forwardedPrefixOf(request);
    const guide = gettingStartedGuide({ origin: publicOrigin(request), basePath, tokenPath: TOKEN_PATH, ...limits });
    reply.type('text/html; charset=utf-8').header('Cache-Control', 'private, no-cache').header('Content-Security-Policy', DOCS_CONTENT_SECURITY_POLICY);
    return docsPage({ assetPath: `${prefix}/docs`, documentUrl: `${prefix}${basePath}/openapi.json`, guide });
  });

  app.get<{ Params: { asset: string } }>('/docs/:asset', async (request, reply) => {
    const asset = assets.get(request.params.asset);
    if (asset === undefined) throw new NotFound(`There is no /docs/${request.params.asset}`);
    return reply.type(asset.type).header('Cache-Control', asset.cache).send(asset.content);
  });
};
