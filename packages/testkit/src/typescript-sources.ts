import { registerHooks } from 'node:module';

/**
 * For a fixture that Node runs directly (type stripping) and that imports a package's sources: they
 * import each other as `./x.js`, as tsc emits them; from now on such an import finds `./x.ts` when
 * there is no `./x.js`. Call it before importing the sources (with `await import(…)`).
 */
export function resolveTypeScriptSources(): void {
  registerHooks({
    resolve(specifier, context, nextResolve) {
      try {
        return nextResolve(specifier, context);
      } catch (err) {
        if (specifier.startsWith('.') && specifier.endsWith('.js')) return nextResolve(`${specifier.slice(0, -3)}.ts`, context);
        throw err;
      }
    },
  });
}
