// What the heir's disk can take. A recovery downloads every encrypted file before it writes the first
// one (the newest copy is known only once all are here), so a disk too small fails only after hours
// of downloading; and a write that fails there is the disk's doing, not the service's. Both are said
// in those words, with what to do.
import { readdir, statfs } from 'node:fs/promises'
import { basename } from 'node:path'

/** Bytes an unprivileged writer may still use on the disk holding `folder`; undefined when unknown. */
export async function freeBytes(folder: string): Promise<number | undefined> {
  try {
    const stats = await statfs(folder)
    return stats.bavail * stats.bsize
  } catch {
    return undefined
  }
}

/** The calls a local write goes through (a socket's errors are the service client's, and worded there). */
const LOCAL_WRITE_CALLS = new Set([
  'open',
  'write',
  'writev',
  'fsync',
  'close',
  'ftruncate',
  'mkdir',
  'link',
  'rename',
])

function sizeText(bytes: number): string {
  if (bytes < 1e9) return `${Math.round(bytes / 1e6)} MB`
  return `${(bytes / 1e9).toFixed(bytes < 10e9 ? 1 : 0)} GB`
}

/** One download of a run, as the disk sees it: encrypted bytes still to come, and the file made from it. */
export interface DiskNeed {
  toDownload: number
  toWrite: number
}

/**
 * Before any download: every download is kept until all files are written, so the encrypted bytes
 * still to come are on the disk together; and when the output folder holds nothing but the downloads
 * (a first run, or one that stopped before writing), so is every file decrypted from them. The heir's
 * words when that is more than the `free` bytes there (the run would fail for certain, only hours
 * later); undefined when it fits, or the free space is unknown. In a folder that already holds files
 * (some recovered by an earlier run, say), a file may be there already and take nothing more, so only
 * the downloads are counted there.
 */
export async function spaceShortfall(
  outDir: string,
  downloads: string,
  free: number | undefined,
  needs: readonly DiskNeed[],
): Promise<string | undefined> {
  if (free === undefined) return undefined
  const writesAll = await holdsOnly(outDir, basename(downloads))
  const needed = needs.reduce(
    (sum, need) => sum + Math.max(0, need.toDownload) + (writesAll ? Math.max(0, need.toWrite) : 0),
    0,
  )
  if (needed <= free) return undefined
  return notEnoughSpace(outDir, needed, free, writesAll)
}

async function holdsOnly(folder: string, name: string): Promise<boolean> {
  try {
    return (await readdir(folder)).every((entry) => entry === name)
  } catch {
    return false
  }
}

/** The downloads still to come (and, with `filesToo`, the files decrypted from them) do not fit. */
export function notEnoughSpace(folder: string, needed: number, free: number, filesToo = true): string {
  const what = filesToo
    ? `the recovery needs ${sizeText(needed)} while it runs: the encrypted files still to download, and the files recovered from them (about twice the vault's size)`
    : `the encrypted files still to download need ${sizeText(needed)}; recovering needs about twice the vault's size while it runs (the downloads and the files)`
  return `The disk holding ${folder} has ${sizeText(free)} free, and ${what}. Nothing more was downloaded. Free some space on that disk, or start again with a folder on a larger disk.`
}

/**
 * The heir's words for a local write that failed while `doing` (e.g. 'downloading "photos.zip"'), or
 * undefined when the error is not the disk's (a network error, say).
 */
export function outputWriteProblem(error: unknown, folder: string, doing: string): string | undefined {
  const { code, syscall } = (error ?? {}) as NodeJS.ErrnoException
  if (!syscall || !LOCAL_WRITE_CALLS.has(syscall)) return undefined
  switch (code) {
    case 'ENOSPC':
    case 'EDQUOT':
      return `The disk holding ${folder} is full, so recovery stopped while ${doing}. Recovering needs free space of about twice the vault's size while it runs (the downloads and the files). Free some space on that disk and start again: what was downloaded so far is kept and continues where it stopped. Or start again with a folder on a larger disk.`
    case 'EFBIG':
      return `Recovery stopped while ${doing}: the file is larger than the disk holding ${folder} can store in one file (disks formatted as FAT32, as many USB sticks are, stop at 4 GB). Start again with a folder on another disk, or on one formatted as exFAT, NTFS, APFS or ext4.`
    case 'EROFS':
      return `Recovery stopped while ${doing}: the disk holding ${folder} is read-only. Start again with a folder you can write to.`
    case 'EACCES':
    case 'EPERM':
      return `Recovery stopped while ${doing}: writing in ${folder} was not permitted. Start again with a folder you can write to.`
    case 'EIO':
      return `Recovery stopped while ${doing}: the disk holding ${folder} reported an error (EIO). Check the disk, or start again with a folder on another disk.`
    default:
      return undefined
  }
}
