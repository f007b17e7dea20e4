// Which dependencies the Node-side bundles carry inside them instead of loading from node_modules.
// zod's package entry loads the whole library and every one of its ~50 locales: 3.0 MB of live heap
// and ~12 MB of RSS in a process that uses a few schemas. Bundled, tree-shaking keeps what is used
// (0.4 MB), and the main process starts that much lighter: enough that V8 sizes its young generation
// at half, which is most of an upload's peak (bench:upload). Every other dependency stays external:
// native modules must, and the rest load no more than they use.
// Used by electron.vite.config.ts (out/main), scripts/build-cli.mjs (out/cli) and the benches.
export const BUNDLED_DEPENDENCIES = ['zod']

/** The package a bare import names: "zod/mini" → "zod", "@noble/ciphers/aes.js" → "@noble/ciphers". */
function packageOf(specifier) {
  const parts = specifier.split('/')
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]
}

/** esbuild: every package external, as `packages: 'external'`, except BUNDLED_DEPENDENCIES. */
export const externalExceptBundled = {
  name: 'external-except-bundled',
  setup(build) {
    // Bare specifiers only: relative and absolute paths are the bundle's own files.
    build.onResolve({ filter: /^[^./]/ }, (args) =>
      BUNDLED_DEPENDENCIES.includes(packageOf(args.path)) ? undefined : { path: args.path, external: true },
    )
  },
}
