// Turns dropped files and folders into the list of files to back up. Folders recurse; OS junk and
// symlinks that lead outside the chosen folder are skipped and reported, never followed silently.
import type { Dirent } from 'node:fs'
import { lstat, readdir, realpath, stat } from 'node:fs/promises'
import { basename, join, relative, sep } from 'node:path'

export interface ScannedFile {
  path: string
  /** Path inside the backup, '/'-separated, starting with the dropped folder's name. */
  relativePath: string
  size: number
  mtimeMs: number
}

export type SkipReason =
  | 'os-junk'
  | 'symlink-outside'
  | 'symlinked-folder'
  | 'broken-symlink'
  | 'not-a-file'
  | 'unreadable'
  // A name that cannot be sealed in the blob (FORMAT.md: control or bidi characters, too long).
  | 'bad-name'

export interface SkippedEntry {
  path: string
  reason: SkipReason
  /** A sentence for the user. */
  detail: string
}

export interface ScanResult {
  files: ScannedFile[]
  skipped: SkippedEntry[]
}

const OS_JUNK = new Set([
  '.ds_store',
  'thumbs.db',
  'desktop.ini',
  'ehthumbs.db',
  '.spotlight-v100',
  '.trashes',
  '.fseventsd',
  '$recycle.bin',
])

export function isOsJunk(name: string): boolean {
  const lower = name.toLowerCase()
  // ._name files are macOS resource forks left on non-Apple disks.
  return OS_JUNK.has(lower) || lower.startsWith('._')
}

function isInside(root: string, target: string): boolean {
  const rel = relative(root, target)
  return rel === '' || (!rel.startsWith('..') && !rel.startsWith(sep) && !/^[a-zA-Z]:/.test(rel))
}

export async function scanForUpload(paths: string[]): Promise<ScanResult> {
  const files: ScannedFile[] = []
  const skipped: SkippedEntry[] = []
  for (const input of paths) {
    const name = basename(input)
    if (isOsJunk(name)) {
      skipped.push({
        path: input,
        reason: 'os-junk',
        detail: `${name} is a system file, not your data; skipped.`,
      })
      continue
    }
    let info: Awaited<ReturnType<typeof stat>>
    try {
      info = await stat(input)
    } catch (error) {
      skipped.push({
        path: input,
        reason: 'unreadable',
        detail: `${name} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}); check that it exists and you may open it.`,
      })
      continue
    }
    if (info.isFile()) {
      files.push({ path: input, relativePath: name, size: info.size, mtimeMs: info.mtimeMs })
    } else if (info.isDirectory()) {
      const root = await realpath(input)
      await walk(root, input, name, files, skipped)
    } else {
      skipped.push({
        path: input,
        reason: 'not-a-file',
        detail: `${name} is not a regular file or folder; skipped.`,
      })
    }
  }
  return { files, skipped }
}

async function walk(
  root: string,
  dir: string,
  relDir: string,
  files: ScannedFile[],
  skipped: SkippedEntry[],
): Promise<void> {
  let entries: Dirent[]
  try {
    entries = await readdir(dir, { withFileTypes: true })
  } catch (error) {
    skipped.push({
      path: dir,
      reason: 'unreadable',
      detail: `The folder ${relDir} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}); its files were skipped.`,
    })
    return
  }
  entries.sort((a, b) => a.name.localeCompare(b.name))
  for (const entry of entries) {
    const path = join(dir, entry.name)
    const relativePath = `${relDir}/${entry.name}`
    if (isOsJunk(entry.name)) {
      skipped.push({
        path,
        reason: 'os-junk',
        detail: `${relativePath} is a system file, not your data; skipped.`,
      })
      continue
    }
    if (entry.isSymbolicLink()) {
      let target: string
      try {
        target = await realpath(path)
      } catch {
        skipped.push({
          path,
          reason: 'broken-symlink',
          detail: `${relativePath} is a link to something that no longer exists; skipped.`,
        })
        continue
      }
      if (!isInside(root, target)) {
        skipped.push({
          path,
          reason: 'symlink-outside',
          detail: `${relativePath} is a link to ${target}, outside the folder being backed up; skipped. Add that location separately if you want it.`,
        })
        continue
      }
      const targetInfo = await stat(target)
      if (targetInfo.isDirectory()) {
        skipped.push({
          path,
          reason: 'symlinked-folder',
          detail: `${relativePath} is a link to a folder already inside this backup; skipped to avoid copying it twice.`,
        })
        continue
      }
      if (targetInfo.isFile())
        files.push({ path, relativePath, size: targetInfo.size, mtimeMs: targetInfo.mtimeMs })
      continue
    }
    if (entry.isDirectory()) {
      await walk(root, path, relativePath, files, skipped)
    } else if (entry.isFile()) {
      const info = await lstat(path)
      files.push({ path, relativePath, size: info.size, mtimeMs: info.mtimeMs })
    } else {
      skipped.push({
        path,
        reason: 'not-a-file',
        detail: `${relativePath} is not a regular file (device, socket or pipe); skipped.`,
      })
    }
  }
}
