// One running service per data directory: at start it empties tmp/ and removes unreferenced blobs, which
// would destroy the uploads of a second service working in the same directory.
import { linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { makePrivateDir, PRIVATE_FILE_MODE, setMode } from './private-files'

/** Another Vault Service holds the data directory; the message says so and what to do. */
export class DataDirInUseError extends Error {
  readonly code = 'EDATADIRINUSE'
  constructor(
    readonly dataDir: string,
    readonly ownerPid: number | null,
  ) {
    super(
      `The data folder ${dataDir} is in use by another Vault Service${ownerPid ? ` (process ${ownerPid})` : ''}: ` +
        'stop that one first, or start this one with another --data-dir.',
    )
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

function readOwner(path: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8'), 10)
    return Number.isInteger(pid) && pid > 0 ? pid : null
  } catch {
    return null
  }
}

const held = new Set<string>()

/** Takes the data directory's lock (a stale one, left by a killed process, is taken over); returns release. */
export function lockDataDir(dataDir: string): () => void {
  makePrivateDir(dataDir)
  const path = join(dataDir, 'service.lock')
  if (held.has(path)) throw new DataDirInUseError(dataDir, process.pid)
  // The pid is written to a file of our own, then linked into place: link() fails if the lock exists, so two
  // services starting at the same moment cannot both take it, and the lock is never seen empty.
  const mine = `${path}.${process.pid}`
  writeFileSync(mine, String(process.pid), { mode: PRIVATE_FILE_MODE })
  setMode(mine, PRIVATE_FILE_MODE)
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(mine, path)
        break
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      }
      const owner = readOwner(path)
      // A lock naming this process with no entry in `held` was left by an earlier run with a recycled pid.
      const stale = owner === null || owner === process.pid || !isAlive(owner)
      if (!stale || attempt > 0) throw new DataDirInUseError(dataDir, owner)
      rmSync(path, { force: true })
    }
  } finally {
    rmSync(mine, { force: true })
  }
  held.add(path)
  return () => {
    held.delete(path)
    rmSync(path, { force: true })
  }
}
