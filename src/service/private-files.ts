// The data directory holds the database (with e-mail bodies that carry access links until they are
// delivered), the encrypted blobs and the lock: only the service's own user may read any of it. Modes are
// set explicitly with chmod, because the mode given at creation is reduced by whatever umask the service
// happens to run with.
import { chmodSync, closeSync, lstatSync, mkdirSync, openSync, readdirSync } from 'node:fs'
import { join } from 'node:path'

export const PRIVATE_DIR_MODE = 0o700
export const PRIVATE_FILE_MODE = 0o600

/** Creates a directory (and missing parents) readable only by this user; tightens it if it existed. */
export function makePrivateDir(path: string): void {
  mkdirSync(path, { recursive: true, mode: PRIVATE_DIR_MODE })
  setMode(path, PRIVATE_DIR_MODE)
}

/** Creates an empty file readable only by this user if it is missing; tightens it if it existed. */
export function makePrivateFile(path: string): void {
  closeSync(openSync(path, 'a', PRIVATE_FILE_MODE))
  setMode(path, PRIVATE_FILE_MODE)
}

/** Sets a file's mode to `mode` unless it already is; a file that vanished meanwhile is fine. */
export function setMode(path: string, mode: number): void {
  try {
    if ((lstatSync(path).mode & 0o777) !== mode) chmodSync(path, mode)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
}

/**
 * Tightens everything under `root` (and root itself): directories 0700, files 0600. For a data directory
 * created by an older version with the default 0755/0644. Symbolic links are left alone (chmod would
 * change what they point to, which may be outside the data directory).
 */
export function tightenTree(root: string): void {
  setMode(root, PRIVATE_DIR_MODE)
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const path = join(root, entry.name)
    if (entry.isDirectory()) tightenTree(path)
    else if (entry.isFile()) setMode(path, PRIVATE_FILE_MODE)
  }
}
