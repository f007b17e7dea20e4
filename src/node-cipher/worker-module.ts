// The worker threads are modules of their own (chunk-worker.ts, file-read-thread.ts) that import the
// format's code. Each bundle emits them beside itself, with its own extension (the entry points are
// in scripts/node-cipher-workers.mjs): out/cli/recover.js starts out/cli/chunk-worker.js, and
// out/main/index.js starts out/main/chunk-worker.js. From sources (vitest, tsx) this module is a .ts
// file, and so is the worker's.
import { Worker, type WorkerOptions } from 'node:worker_threads'

export type WorkerModule = 'chunk-worker' | 'file-read-thread'

export function startWorker(name: WorkerModule, options: WorkerOptions = {}): Worker {
  const here = new URL(import.meta.url)
  const extension = here.pathname.slice(here.pathname.lastIndexOf('.'))
  const file = new URL(`./${name}${extension}`, here)
  if (extension !== '.ts') return new Worker(file, options)
  // tsx (a dev dependency) compiles the worker's source; resolved from here, whatever the cwd.
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'))
  const href = JSON.stringify(file.href)
  const load = `import(${tsx}).then(({ tsImport }) => tsImport(${href}, ${href}))`
  return new Worker(load, { ...options, eval: true })
}
