import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyPluginAsync } from 'fastify';
import { forwardedPrefixOf, NotFound, publicOrigin } from '@rm/service-kit';
import type { createApiDocument } from '../openapi/api-document.js';

export interface DocsRoutesOptions {
  apiDocument: ReturnType<typeof createApiDocument>;
  basePath: string;
}

/** swagger-ui's files, served by the gateway itself, and no online validator: the docs work without internet access. */
const ASSETS = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
} as const;

/** `{base_url}/openapi.json` (the whole v1 API) and `/docs`, without a token: they describe, they grant nothing. */
export const docsRoutes: FastifyPluginAsync<DocsRoutesOptions> = async (app, { apiDocument, basePath }) => {
  const assetDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const assets = new Map(
    await Promise.all(Object.entries(ASSETS).map(async ([name, type]) => [name, { type, content: await readFile(join(assetDir, name)) }] as const)),
  );

  // Built for the caller's view of the gateway (trusted X-Forwarded-*, else Host): never cached by others.
  app.get(`${basePath}/openapi.json`, async (request, reply) => {
    reply.header('Cache-Control', 'private, no-cache');
    return apiDocument.document(publicOrigin(request));
  });

  app.get('/docs', async (request, reply) => {
    const prefix = forwardedPrefixOf(request);
    reply.type('text/html; charset=utf-8').header('Cache-Control', 'private, no-cache');
    return docsPage(`${prefix}/docs`, `${prefix}${basePath}/openapi.json`);
  });

  app.get<{ Params: { asset: string } }>('/docs/:asset', async (request, reply) => {
    const asset = assets.get(request.params.asset);
    if (asset === undefined) throw new NotFound(`There is no /docs/${request.params.asset}`);
    return reply.type(asset.type).header('Cache-Control', 'public, max-age=86400').send(asset.content);
  });
};

function docsPage(assetPath: string, documentUrl: string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Resource management API v1</title>
  <link rel="stylesheet" href="${assetPath}/swagger-ui.css">
  <link rel="icon" type="image/png" href="${assetPath}/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${assetPath}/swagger-ui-bundle.js"></script>
  <script src="${assetPath}/swagger-ui-standalone-preset.js"></script>
  <script>
    window.ui = SwaggerUIBundle({ url: ${JSON.stringify(documentUrl)}, dom_id: '#swagger-ui', validatorUrl: null, presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'StandaloneLayout' });
  </script>
</body>
</html>
`;
}
