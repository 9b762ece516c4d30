import { html, htmlPage, scriptLiteral, type SafeHtml } from './html.js';

export interface DocsPageOptions {
  /** Where the page's swagger-ui files are: `{prefix}/docs`. */
  assetPath: string;
  /** The OpenAPI document: `{prefix}{base path}/openapi.json`. */
  documentUrl: string;
  /** The getting-started guide (guide.ts), shown above the operations. */
  guide: SafeHtml;
}

/**
 * The swagger-ui settings, and why:
 * - no `tagsSorter`: the operations are grouped by the document's tags in the document's order (one per
 *   resource, as the spec presents them), not alphabetically;
 * - `displayOperationId`, `deepLinking` (`#/Employee/getEmployee` opens it), `filter` (by tag or path);
 * - `persistAuthorization`: a reload keeps the token; `forgetSecrets` below keeps it without the secret;
 * - `BaseLayout`, not the standalone one: its top bar only loads another document by URL;
 * - nothing for the clientCredentials flow itself: swagger-ui always sends its client id and secret to
 *   `tokenUrl` as HTTP Basic there, as the token endpoint expects (`useBasicAuthenticationWithAccessCodeGrant`
 *   is for the authorization code flow only);
 * - `validatorUrl: null`: no call to swagger.io's online validator; the page needs no internet access.
 */
const SWAGGER_UI_SETTINGS = {
  dom_id: '#swagger-ui',
  layout: 'BaseLayout',
  deepLinking: true,
  displayOperationId: true,
  displayRequestDuration: true,
  filter: true,
  persistAuthorization: true,
  validatorUrl: null,
};

/**
 * What starts swagger-ui on the page (`/docs/docs-init.js`): a file of the gateway's, not an inline script,
 * so that the page's policy runs no script but the gateway's files (DOCS_CONTENT_SECURITY_POLICY).
 */
export const DOCS_INIT_SCRIPT = `// A hash that names an element of the page as served (#licence) is an anchor, already scrolled to, not a deep link to an operation.
const guideAnchors = () => ({
  statePlugins: {
    layout: { wrapActions: { parseDeepLinkHash: (parse) => (hash) => (document.getElementById(hash.slice(1)) === null ? parse(hash) : undefined) } },
    auth: { wrapActions: { persistAuthorizationIfNeeded: (persist) => () => { persist(); forgetSecrets(); } } },
  },
});
// A client secret lives longer than its tokens: it is typed again to authorize again, never kept in the browser.
function forgetSecrets() {
  const stored = JSON.parse(localStorage.getItem('authorized') || '{}');
  for (const auth of Object.values(stored)) delete auth.clientSecret;
  localStorage.setItem('authorized', JSON.stringify(stored));
}
window.ui = SwaggerUIBundle({ ...${scriptLiteral(SWAGGER_UI_SETTINGS)}, url: document.getElementById('swagger-ui').dataset.documentUrl, presets: [SwaggerUIBundle.presets.apis], plugins: [guideAnchors] });
`;

/**
 * Only the gateway's scripts, and nothing sent elsewhere: the board keeps a client secret in this origin's
 * session storage, which a script injected here could read. swagger-ui sets inline styles and draws
 * data: images, so those two are allowed.
 */
export const DOCS_CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The docs page: the guide, then swagger-ui over the document, all from the gateway itself. */
export function docsPage({ assetPath, documentUrl, guide }: DocsPageOptions): string {
  return htmlPage({
    title: 'Resource management API v1',
    head: html`<link rel="stylesheet" href="${assetPath}/swagger-ui.css">
<link rel="icon" type="image/png" href="${assetPath}/favicon-32x32.png">
<style>${STYLE}</style>`,
    body: html`<header class="rm-topbar">
  <div class="rm-wrapper">
    <span class="rm-brand">Resource management API v1</span>
    <nav aria-label="Page">
      <a href="#guide">Getting started</a> <a href="#swagger-ui">Operations</a> <a href="#licence">Licence</a>
      <a href="${documentUrl}">openapi.json</a>
    </nav>
  </div>
</header>
<main>
  <div class="rm-wrapper">${guide}</div>
  <div id="swagger-ui" data-document-url="${documentUrl}"></div>
</main>
<script src="${assetPath}/swagger-ui-bundle.js"></script>
<script src="${assetPath}/docs-init.js"></script>`,
  });
}

/**
 * The guide in swagger-ui's own look (its fonts, colours and width), so that the page reads as one;
 * and the top bar that replaces swagger-ui's.
 */
const STYLE = html`
  body { margin: 0; background: #fff; color: #3b4151; font-family: sans-serif; }
  .rm-wrapper { box-sizing: border-box; max-width: 1460px; margin: 0 auto; padding: 0 20px; }
  .rm-topbar { background: #1b1b1b; padding: 10px 0; }
  .rm-topbar .rm-wrapper { display: flex; align-items: center; justify-content: space-between; gap: 16px; flex-wrap: wrap; }
  .rm-brand { color: #fff; font-weight: 700; font-size: 1.15em; }
  .rm-topbar a { color: #fff; text-decoration: none; margin-left: 16px; font-size: 0.95em; }
  .rm-topbar a:hover { text-decoration: underline; }
  .rm-guide { max-width: 60em; padding: 24px 0 8px; line-height: 1.5; font-size: 15px; }
  .rm-guide h1 { font-size: 30px; margin: 0 0 8px; }
  .rm-guide h2 { font-size: 22px; margin: 32px 0 8px; padding-bottom: 4px; border-bottom: 1px solid rgba(59, 65, 81, 0.3); }
  .rm-guide h3 { font-size: 17px; margin: 20px 0 6px; }
  .rm-guide p { margin: 8px 0; }
  .rm-guide a { color: #4990e2; }
  .rm-guide code { font-family: monospace; font-size: 0.92em; background: rgba(0, 0, 0, 0.05); padding: 1px 4px; border-radius: 3px; }
  .rm-guide pre { background: #333; color: #fff; padding: 10px 12px; border-radius: 4px; overflow-x: auto; margin: 8px 0; }
  .rm-guide :not(pre) > code { white-space: nowrap; }
  .rm-guide pre code { background: none; padding: 0; color: inherit; font-size: 13px; }
  .rm-lead { font-size: 16px; }
  .rm-facts { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 12px 0; }
  .rm-facts dt { font-weight: 700; }
  .rm-facts dd { margin: 0; overflow-wrap: anywhere; }
  .rm-toc { display: flex; flex-wrap: wrap; gap: 6px 18px; padding: 10px 0; border-top: 1px solid rgba(59, 65, 81, 0.3); border-bottom: 1px solid rgba(59, 65, 81, 0.3); }
  .rm-scroll { overflow-x: auto; }
  .rm-table { border-collapse: collapse; width: 100%; margin: 12px 0; font-size: 14px; }
  .rm-table th, .rm-table td { text-align: left; vertical-align: top; padding: 6px 10px; border-bottom: 1px solid rgba(59, 65, 81, 0.2); }
  .rm-table th { border-bottom: 2px solid rgba(59, 65, 81, 0.4); }
  .rm-table td:first-child { font-weight: 700; white-space: nowrap; }
  /* swagger-ui explains scopes to choose from: this API has none */
  .auth-container .scope-def { display: none; }
  #swagger-ui { border-top: 1px solid rgba(59, 65, 81, 0.3); margin-top: 24px; }
`;
