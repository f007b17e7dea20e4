import react from '@vitejs/plugin-react'
import { defineConfig } from 'electron-vite'

export default defineConfig({
  main: {
    build: {
      rolldownOptions: { input: { index: 'src/main/electron/index.ts' } },
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
