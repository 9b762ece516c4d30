import { html, htmlPage } from '../docs/html.js';

export interface BoardPageOptions {
  /** Where the board's script and style sheet are: `{prefix}/board`. */
  assetPath: string;
  /** The API base URL and the token endpoint as the caller reached them, for the typed client in the page. */
  baseUrl: string;
  tokenUrl: string;
}

/**
 * The page of the planner's board (@rm/board): its script renders into `#board` and calls the API at
 * `data-base-url` with tokens of `data-token-url`, so the page works behind any prefix.
 */
export function boardPage({ assetPath, baseUrl, tokenUrl }: BoardPageOptions): string {
  return htmlPage({
    title: 'Planner’s board',
    head: html`<link rel="stylesheet" href="${assetPath}/board.css">`,
    body: html`<div id="board" data-base-url="${baseUrl}" data-token-url="${tokenUrl}"></div>
<noscript>The board needs JavaScript.</noscript>
<script type="module" src="${assetPath}/board.js"></script>`,
  });
}

/**
 * Only the gateway's own files and API: no inline script, no other origin, never framed (the page holds a
 * client secret for its session).
 */
export const BOARD_CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
