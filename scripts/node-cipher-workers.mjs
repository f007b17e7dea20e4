// The worker threads of src/node-cipher, each a module of its own. A bundle that includes
// src/node-cipher must also emit these as entry points next to itself, under these names and with its
// own extension: src/node-cipher/worker-module.ts starts `./<name><extension of the bundle>`.
// Used by scripts/build-cli.mjs (out/cli), electron.vite.config.ts (out/main) and the benches.
export const NODE_CIPHER_WORKERS = {
  'chunk-worker': 'src/node-cipher/chunk-worker.ts',
  'file-read-thread': 'src/node-cipher/file-read-thread.ts',
}
