import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyPluginAsync } from 'fastify';
import { forwardedPrefixOf, NotFound, publicOrigin } from '@rm/service-kit';
import { boardPage, BOARD_CONTENT_SECURITY_POLICY } from '../board/board-page.js';
import { TOKEN_PATH } from './token.routes.js';

export interface BoardRoutesOptions {
  basePath: string;
}

const ASSETS = { 'board.js': 'text/javascript; charset=utf-8', 'board.css': 'text/css; charset=utf-8' } as const;

/** `/board`, the planner's board (@rm/board's built files), without a token: the page signs in itself. */
export const boardRoutes: FastifyPluginAsync<BoardRoutesOptions> = async (app, { basePath }) => {
  const assetDir = join(dirname(createRequire(import.meta.url).resolve('@rm/board/package.json')), 'dist');
  const assets = new Map(
    await Promise.all(Object.entries(ASSETS).map(async ([name, type]) => [name, { type, content: await readFile(join(assetDir, name)) }] as const)),
  );

  app.get('/board', async (request, reply) => {
    const prefix = forwardedPrefixOf(request);
    const origin = publicOrigin(request);
    reply.type('text/html; charset=utf-8').header('Cache-Control', 'private, no-cache').header('Content-Security-Policy', BOARD_CONTENT_SECURITY_POLICY);
    return boardPage({ assetPath: `${prefix}/board`, baseUrl: `${origin}${basePath}`, tokenUrl: `${origin}${TOKEN_PATH}` });
  });

  app.get<{ Params: { asset: string } }>('/board/:asset', async (request, reply) => {
    const asset = assets.get(request.params.asset as keyof typeof ASSETS);
    if (asset === undefined) throw new NotFound(`There is no /board/${request.params.asset}`);
    // no-cache: the file changes with each release under the same name; the ETag-less copy is small
    return reply.type(asset.type).header('Cache-Control', 'no-cache').send(asset.content);
  });
};
