// Where Electron's app.getPath('userData') points for this app, computed without Electron so
// browser mode and the desktop app share settings and keys; and that folder kept private.
import type { Dirent } from 'node:fs'
import { chmod, lstat, mkdir, readdir } from 'node:fs/promises'
import { homedir } from 'node:os'
import { join } from 'node:path'

export const PRODUCT_NAME = 'Vault Desktop'

export function defaultUserDataDir(
  env: NodeJS.ProcessEnv = process.env,
  platform = process.platform,
): string {
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), PRODUCT_NAME)
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', PRODUCT_NAME)
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), PRODUCT_NAME)
}

/** The modes the app gives its own data: only the owner of the account reads or lists it. */
export const PRIVATE_DIR_MODE = 0o700
export const PRIVATE_FILE_MODE = 0o600

export interface PrivacyResult {
  /** Folders and files whose group or other permissions were removed. */
  tightened: number
  /** Entries whose mode could not be changed (another owner, say), with the reason. */
  failed: string[]
}

/**
 * Makes the data folder if needed and leaves it, and everything in it, readable by its owner alone:
 * the folder 0700, every folder below 0700 at most, every file without group or other permissions
 * (0644 becomes 0600). The folder holds guardian and heir names and e-mails, file names and check-in
 * notes; versions before this one left it 0755 with 0644 files, so an existing one is tightened at
 * every start. Symbolic links are neither followed nor changed. On Windows the folder's access list
 * (inherited from the user's profile) already keeps other users out and POSIX modes mean nothing:
 * nothing is done there.
 */
export async function keepUserDataPrivate(dir: string, platform = process.platform): Promise<PrivacyResult> {
  const result: PrivacyResult = { tightened: 0, failed: [] }
  if (platform === 'win32') return result
  // mkdir's mode passes through the umask; chmod then sets it whatever the umask was.
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE })
  await tighten(dir, true, result)
  return result
}

async function tighten(path: string, isDir: boolean, result: PrivacyResult): Promise<void> {
  try {
    const { mode } = await lstat(path)
    const loose = mode & 0o077
    if (loose !== 0) {
      // Files keep their owner bits (an owner-only 0700 file stays 0700), never gain any.
      await chmod(path, isDir ? PRIVATE_DIR_MODE : mode & 0o700)
      result.tightened++
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') result.failed.push(`${path}: ${describe(error)}`)
    return
  }
  if (!isDir) return
  let entries: Dirent[]
  try {
    entries = await readdir(path, { withFileTypes: true })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') result.failed.push(`${path}: ${describe(error)}`)
    return
  }
  for (const entry of entries) {
    if (entry.isSymbolicLink()) continue
    if (entry.isDirectory() || entry.isFile())
      await tighten(join(path, entry.name), entry.isDirectory(), result)
  }
}

function describe(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error))
}
