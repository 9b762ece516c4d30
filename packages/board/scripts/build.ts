// Bundles the board for browsers: one script (Preact, the typed client and the page's code) and its style sheet, in dist/.
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';

const root = join(import.meta.dirname, '..');
await mkdir(join(root, 'dist'), { recursive: true });
await build({
  entryPoints: [join(root, 'src/main.tsx')],
  outfile: join(root, 'dist/board.js'),
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  sourcemap: false,
  jsx: 'automatic',
  jsxImportSource: 'preact',
  legalComments: 'none',
  logLevel: 'warning',
});
await copyFile(join(root, 'src/board.css'), join(root, 'dist/board.css'));
