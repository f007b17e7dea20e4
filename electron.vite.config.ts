import react from '@vitejs/plugin-react'
import { defineConfig } from 'electron-vite'
import { BUNDLED_DEPENDENCIES } from './scripts/bundled-dependencies.mjs'
import { NODE_CIPHER_WORKERS } from './scripts/node-cipher-workers.mjs'

export default defineConfig({
  main: {
    build: {
      // Carried in the bundle, tree-shaken, instead of loaded whole from node_modules (see the list).
      externalizeDeps: { exclude: BUNDLED_DEPENDENCIES },
      // The worker threads' modules land beside index.js (out/main/chunk-worker.js, ...), where
      // src/node-cipher/worker-module.ts looks for them.
      rolldownOptions: { input: { index: 'src/main/electron/index.ts', ...NODE_CIPHER_WORKERS } },
    },
  },
  preload: {
    build: {
      // Sandboxed preloads must be a single CommonJS file with their dependencies bundled in.
      externalizeDeps: false,
      minify: true,
      rolldownOptions: {
        input: { index: 'src/preload/index.ts' },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: 'src/renderer',
    plugins: [react()],
    build: {
      minify: true,
      rolldownOptions: { input: 'src/renderer/index.html' },
    },
  },
})
