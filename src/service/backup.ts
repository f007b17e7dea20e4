// Backups of a data directory: a consistent snapshot taken while the service runs, and its restore into an
// empty data directory on any machine. A backup is a folder: vault.sqlite3 (the database as of one moment),
// blobs/<first 2 hex>/<sha256 hex> (every blob a row of that database refers to) and manifest.json.
import { createHash } from 'node:crypto'
import { createReadStream, createWriteStream, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { rename, writeFile } from 'node:fs/promises'
import { join, resolve, sep } from 'node:path'
import { Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import Database from 'better-sqlite3'
import { lockDataDir } from './data-dir-lock'
import { DATABASE_FILE, openDatabase } from './database'
import { makePrivateDir, PRIVATE_FILE_MODE, setMode } from './private-files'

export const MANIFEST_FILE = 'manifest.json'
const BACKUP_FORMAT = 'vault-service-backup'
const BACKUP_VERSION = 1
/** A vault deleted between the database snapshot and the blob copy takes its blobs along: snapshot again. */
const SNAPSHOT_ATTEMPTS = 3

/** A backup or restore that cannot go on; the message says what happened and what to do. */
export class BackupError extends Error {}

export interface BackupManifest {
  format: typeof BACKUP_FORMAT
  version: number
  createdAt: string
  schemaVersion: number
  counts: { accounts: number; vaults: number; assets: number; blobs: number; blobBytes: number }
  database: { file: string; bytes: number; sha256: string }
  blobs: { sha256: string; bytes: number }[]
  /** SHA-256 of this manifest's JSON without this field: any edit of the manifest is seen. */
  checksum: string
}

export interface BackupReport {
  to: string
  createdAt: string
  counts: BackupManifest['counts']
  databaseBytes: number
  elapsedMs: number
}

export interface RestoreReport {
  dataDir: string
  createdAt: string
  counts: BackupManifest['counts']
}

function manifestChecksum(manifest: Omit<BackupManifest, 'checksum'> & { checksum?: string }): string {
  const { checksum: _ignored, ...rest } = manifest
  return createHash('sha256').update(JSON.stringify(rest)).digest('hex')
}

function blobPath(root: string, sha256Hex: string): string {
  return join(root, 'blobs', sha256Hex.slice(0, 2), sha256Hex)
}

/** Copies a file privately (0600), returning its SHA-256 and size as read. */
async function copyHashed(from: string, to: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256')
  let bytes = 0
  const tee = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk)
      bytes += chunk.length
      callback(null, chunk)
    },
  })
  const partial = `${to}.part`
  await pipeline(createReadStream(from), tee, createWriteStream(partial, { mode: PRIVATE_FILE_MODE }))
  setMode(partial, PRIVATE_FILE_MODE)
  await rename(partial, to)
  return { sha256: hash.digest('hex'), bytes }
}

async function hashFile(path: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256')
  let bytes = 0
  for await (const chunk of createReadStream(path)) {
    hash.update(chunk as Buffer)
    bytes += (chunk as Buffer).length
  }
  return { sha256: hash.digest('hex'), bytes }
}

function isEmptyOrMissing(dir: string): boolean {
  return !existsSync(dir) || readdirSync(dir).length === 0
}

function countsOf(db: Database.Database): Omit<BackupManifest['counts'], 'blobs' | 'blobBytes'> {
  const count = (table: string) => db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number
  return { accounts: count('accounts'), vaults: count('vaults'), assets: count('assets') }
}

function referencedBlobs(db: Database.Database): string[] {
  return db.prepare('SELECT DISTINCT sha256 FROM assets ORDER BY sha256').pluck().all() as string[]
}

/**
 * Writes a backup of dataDir into the empty folder `to` while a service may be running on dataDir. The
 * database is copied through SQLite's online backup from a second, read-only connection (the service keeps
 * writing; WAL readers do not block it); blobs are copied after, so every blob a copied row names exists
 * (a blob is placed before its row commits). Staged uploads (tmp/) and blobs no copied row names are left out.
 */
export async function backupDataDir(
  dataDir: string,
  to: string,
  clock: () => Date = () => new Date(),
): Promise<BackupReport> {
  const started = performance.now()
  const source = join(dataDir, DATABASE_FILE)
  if (!existsSync(source)) {
    throw new BackupError(
      `There is no Vault Service database in ${dataDir}: check --data-dir (it is the folder serve runs on).`,
    )
  }
  if (`${resolve(to)}${sep}`.startsWith(`${resolve(dataDir)}${sep}`)) {
    throw new BackupError(
      `The backup folder ${to} is inside the data folder ${dataDir}: give a --to outside it (another disk, ideally), so the backup survives the data folder.`,
    )
  }
  if (!isEmptyOrMissing(to)) {
    throw new BackupError(
      `The backup folder ${to} is not empty: give a new or empty folder as --to, so no older backup is mixed in.`,
    )
  }
  makePrivateDir(to)
  for (let attempt = 1; ; attempt++) {
    const databaseCopy = join(to, DATABASE_FILE)
    rmSync(join(to, 'blobs'), { recursive: true, force: true })
    rmSync(databaseCopy, { force: true })
    const live = new Database(source, { readonly: true, fileMustExist: true })
    try {
      // All remaining pages in one step (one read transaction): in steps of 100, every write the service
      // commits between two steps would start the copy over, and a busy service might never let it finish.
      await live.backup(databaseCopy, { progress: () => 0x7fffffff })
    } finally {
      live.close()
    }
    setMode(databaseCopy, PRIVATE_FILE_MODE)
    // The copy carries WAL mode in its header; as a single self-contained file it is easier to hash and move.
    const copy = new Database(databaseCopy)
    let shas: string[]
    let counts: ReturnType<typeof countsOf>
    let schemaVersion: number
    try {
      copy.pragma('journal_mode = DELETE')
      shas = referencedBlobs(copy)
      counts = countsOf(copy)
      schemaVersion = copy.pragma('user_version', { simple: true }) as number
    } finally {
      copy.close()
    }
    const blobs: BackupManifest['blobs'] = []
    let vanished: string | null = null
    for (const sha of shas) {
      const from = blobPath(dataDir, sha)
      if (!existsSync(from)) {
        vanished = sha
        break
      }
      makePrivateDir(join(to, 'blobs', sha.slice(0, 2)))
      const copied = await copyHashed(from, blobPath(to, sha))
      if (copied.sha256 !== sha) {
        throw new BackupError(
          `The stored blob ${sha} does not hash to its name (the disk under ${dataDir} has damaged it): ` +
            'the asset that uses it cannot be backed up; restore that file from an older backup.',
        )
      }
      blobs.push(copied)
    }
    if (vanished !== null) {
      if (attempt < SNAPSHOT_ATTEMPTS) continue
      throw new BackupError(
        `The blob ${vanished} disappeared from ${dataDir} while it was being backed up (${SNAPSHOT_ATTEMPTS} times): ` +
          'the service is deleting vaults right now; run the backup again in a quieter moment.',
      )
    }
    const database = await hashFile(databaseCopy)
    const createdAt = clock().toISOString()
    const unsigned: Omit<BackupManifest, 'checksum'> = {
      format: BACKUP_FORMAT,
      version: BACKUP_VERSION,
      createdAt,
      schemaVersion,
      counts: { ...counts, blobs: blobs.length, blobBytes: blobs.reduce((sum, blob) => sum + blob.bytes, 0) },
      database: { file: DATABASE_FILE, ...database },
      blobs,
    }
    const manifest: BackupManifest = { ...unsigned, checksum: manifestChecksum(unsigned) }
    // Written last: a folder without a manifest is an unfinished backup, and restore says so.
    await writeFile(join(to, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`, {
      mode: PRIVATE_FILE_MODE,
    })
    setMode(join(to, MANIFEST_FILE), PRIVATE_FILE_MODE)
    return {
      to,
      createdAt,
      counts: manifest.counts,
      databaseBytes: database.bytes,
      elapsedMs: Math.round(performance.now() - started),
    }
  }
}

function damaged(from: string, what: string): BackupError {
  return new BackupError(
    `The backup in ${from} is damaged or incomplete (${what}); nothing was restored: use another backup.`,
  )
}

function readManifest(from: string): BackupManifest {
  const path = join(from, MANIFEST_FILE)
  if (!existsSync(path)) {
    throw new BackupError(
      `${from} has no ${MANIFEST_FILE}, so it is not a finished Vault Service backup; nothing was restored: ` +
        'give the folder admin backup wrote as --from, or use another backup.',
    )
  }
  let manifest: BackupManifest
  try {
    manifest = JSON.parse(readFileSync(path, 'utf8')) as BackupManifest
  } catch {
    throw damaged(from, `${MANIFEST_FILE} is not readable JSON`)
  }
  if (manifest?.format !== BACKUP_FORMAT) throw damaged(from, `${MANIFEST_FILE} is not a backup manifest`)
  if (manifest.version !== BACKUP_VERSION) {
    throw new BackupError(
      `The backup in ${from} has format version ${manifest.version}, which this Vault Service does not know: restore it with the version that wrote it or a newer one.`,
    )
  }
  if (manifest.checksum !== manifestChecksum(manifest)) {
    throw damaged(from, `${MANIFEST_FILE} was changed after the backup was written`)
  }
  return manifest
}

/**
 * Restores the backup in `from` into dataDir, which must be empty or missing. The data directory is locked
 * meanwhile, so a service started on it at the same moment is refused. Everything is checked against the
 * manifest as it is copied; on any failure dataDir is emptied again and the error says what happened.
 */
export async function restoreDataDir(from: string, dataDir: string): Promise<RestoreReport> {
  if (!existsSync(from)) {
    throw new BackupError(`There is no backup at ${from}: check --from (the folder admin backup wrote).`)
  }
  const manifest = readManifest(from)
  if (!isEmptyOrMissing(dataDir)) {
    const running = existsSync(join(dataDir, 'service.lock'))
    throw new BackupError(
      `The data folder ${dataDir} is not empty${running ? ' (a Vault Service may be running on it)' : ''}: ` +
        'restore into a new or empty folder, so no existing data is overwritten.',
    )
  }
  if (!existsSync(join(from, manifest.database.file)))
    throw damaged(from, `${manifest.database.file} is missing`)
  const unlock = lockDataDir(dataDir)
  try {
    const database = await copyHashed(join(from, manifest.database.file), join(dataDir, DATABASE_FILE))
    if (database.sha256 !== manifest.database.sha256 || database.bytes !== manifest.database.bytes) {
      throw damaged(from, `${manifest.database.file} does not match the manifest`)
    }
    for (const blob of manifest.blobs) {
      const source = blobPath(from, blob.sha256)
      if (!existsSync(source)) throw damaged(from, `the blob ${blob.sha256} is missing`)
      makePrivateDir(join(dataDir, 'blobs', blob.sha256.slice(0, 2)))
      const copied = await copyHashed(source, blobPath(dataDir, blob.sha256))
      if (copied.sha256 !== blob.sha256 || copied.bytes !== blob.bytes) {
        throw damaged(from, `the blob ${blob.sha256} does not match its checksum`)
      }
    }
    const db = openDatabase(dataDir)
    try {
      const check = db.pragma('quick_check', { simple: true })
      if (check !== 'ok') throw damaged(from, `the database check says: ${String(check)}`)
      const listed = new Set(manifest.blobs.map((blob) => blob.sha256))
      const missing = referencedBlobs(db).find((sha) => !listed.has(sha))
      if (missing)
        throw damaged(from, `the database names the blob ${missing}, which the backup does not hold`)
    } finally {
      db.close()
    }
  } catch (error) {
    unlock()
    for (const name of readdirSync(dataDir)) rmSync(join(dataDir, name), { recursive: true, force: true })
    if (error instanceof BackupError) throw error
    throw new BackupError(
      `Restoring ${from} into ${dataDir} failed: ${(error as Error).message ?? error}; the data folder was emptied again.`,
    )
  }
  unlock()
  return { dataDir, createdAt: manifest.createdAt, counts: manifest.counts }
}
