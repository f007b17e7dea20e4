// One running service per data directory: at start it empties tmp/ and removes unreferenced blobs, which
// would destroy the uploads of a second service working in the same directory.
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { PRIVATE_FILE_MODE, setMode } from './private-files'

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

const held = new Set<string>()

/** Takes the data directory's lock (a stale one, left by a killed process, is taken over); returns release. */
export function lockDataDir(dataDir: string): () => void {
  const path = join(dataDir, 'service.lock')
  let owner: number | null = null
  try {
    owner = Number.parseInt(readFileSync(path, 'utf8'), 10)
  } catch {}
  const inUse = held.has(path) || (owner !== null && owner !== process.pid && isAlive(owner))
  if (inUse) {
    throw new Error(
      `the data directory ${dataDir} is in use by another Vault Service${owner && owner !== process.pid ? ` (pid ${owner})` : ''}; stop it first or choose another --data-dir`,
    )
  }
  writeFileSync(path, String(process.pid), { mode: PRIVATE_FILE_MODE })
  setMode(path, PRIVATE_FILE_MODE)
  held.add(path)
  return () => {
    held.delete(path)
    rmSync(path, { force: true })
  }
}
