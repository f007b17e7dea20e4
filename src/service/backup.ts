// Backups of a data directory: a consistent snapshot taken while the service runs, and its restore into an
// empty data directory on any machine. A backup is a folder: vault.sqlite3 (the database as of one moment),
// blobs/<first 2 hex>/<sha256 hex> (every blob a row of that database refers to) and manifest.json.
//
// The manifest's checksum is a plain SHA-256 anyone can recompute: it catches accidental damage, not a change
// made on purpose. What proves a backup is the operator's own is an HMAC-SHA-256 over the manifest with the
// backup key, a secret init makes and the operator keeps apart from the backups; restore checks it before it
// writes anything.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import {
  closeSync,
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs'
import { rename, writeFile } from 'node:fs/promises'
import { dirname, join, resolve, sep } from 'node:path'
import { Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import Database from 'better-sqlite3'
import { z } from 'zod'
import { lockDataDir } from './data-dir-lock'
import { DATABASE_FILE, openDatabase } from './database'
import { makePrivateDir, PRIVATE_FILE_MODE, setMode } from './private-files'
import { CONFIG_FILE_NAME } from './service-config'

export const MANIFEST_FILE = 'manifest.json'
const BACKUP_FORMAT = 'vault-service-backup'
/** 2: the manifest carries an HMAC under the backup key. 1: a checksum only (restored only on request). */
const BACKUP_VERSION = 2
const UNSIGNED_VERSION = 1
const MAC_ALGORITHM = 'HMAC-SHA-256'
const BACKUP_KEY_BYTES = 32
/** The backup key's file name when init puts it next to the config file. */
export const BACKUP_KEY_FILE_NAME = 'backup.key'
/** Where restore and backup also take the key from: a key typed from a password manager needs no file. */
export const BACKUP_KEY_ENV = 'VAULT_BACKUP_KEY'
/** Restore's opt-in for a backup whose manifest it cannot authenticate (older, or the key lost). */
export const SKIP_TAMPER_CHECK_FLAG = '--skip-tamper-check'
/** A vault deleted between the database snapshot and the blob copy takes its blobs along: snapshot again. */
const SNAPSHOT_ATTEMPTS = 3
/** Restore copies into this folder inside the data folder and moves a file out only once its hash matched. */
const RESTORE_STAGING = 'restore.partial'

/** What init may have put into a new data folder before a restore: kept, and no reason to refuse it. */
const SET_UP_FILES = new Set([CONFIG_FILE_NAME, BACKUP_KEY_FILE_NAME])

/** A backup or restore that cannot go on; the message says what happened and what to do. */
export class BackupError extends Error {}

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, 'is not 64 lowercase hex digits (a SHA-256)')
const size = z.number().int().nonnegative()

/** What restore accepts: any other name could steer a copy outside the data folder, so it is refused up front. */
const manifestSchema = z.strictObject({
  format: z.literal(BACKUP_FORMAT),
  version: z.union([z.literal(UNSIGNED_VERSION), z.literal(BACKUP_VERSION)]),
  createdAt: z.string().min(1),
  schemaVersion: size,
  counts: z.strictObject({ accounts: size, vaults: size, assets: size, blobs: size, blobBytes: size }),
  database: z.strictObject({
    file: z.literal(DATABASE_FILE, `is not ${DATABASE_FILE}`),
    bytes: size,
    sha256: sha256Hex,
  }),
  blobs: z.array(z.strictObject({ sha256: sha256Hex, bytes: size })),
  /** SHA-256 of this manifest's JSON without checksum and mac: accidental damage is seen. */
  checksum: sha256Hex,
  /** HMAC-SHA-256 of the same JSON under the backup key: a change by anyone without the key is seen. */
  mac: z
    .strictObject({
      algorithm: z.literal(MAC_ALGORITHM),
      keyId: z.string().regex(/^[0-9a-f]{16}$/),
      value: sha256Hex,
    })
    .optional(),
})

export type BackupManifest = z.infer<typeof manifestSchema>

export interface BackupReport {
  to: string
  createdAt: string
  counts: BackupManifest['counts']
  databaseBytes: number
  /** Which backup key signed it (a fingerprint, not the key). */
  keyId: string
  elapsedMs: number
}

export interface RestoreReport {
  dataDir: string
  createdAt: string
  counts: BackupManifest['counts']
  /** 'verified': the MAC matched the key given; 'skipped': restored on SKIP_TAMPER_CHECK_FLAG. */
  tamperCheck: 'verified' | 'skipped'
}

/** The operator's backup key, and the file it came from when it came from one. */
export interface BackupKey {
  key: Buffer
  file?: string
}

/** A short public fingerprint of a backup key, so a restore can say which key a backup needs. */
export function backupKeyId(key: Buffer): string {
  return createHash('sha256').update('vault-service backup key id\0').update(key).digest('hex').slice(0, 16)
}

/** The backup key as written in its file or typed: 64 hex digits. */
export function parseBackupKey(text: string, where: string): Buffer {
  const hex = text.trim()
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) {
    throw new BackupError(
      `${where} does not hold a backup key (64 hex digits, as init printed it): check the file or the value.`,
    )
  }
  return Buffer.from(hex, 'hex')
}

/** Reads a backup key file; refuses one other users may read (they could sign a forged backup). */
export function readBackupKeyFile(file: string): BackupKey {
  const path = resolve(file)
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw new BackupError(
      code === 'ENOENT'
        ? `There is no backup key file at ${path}: give the file init wrote (or the key it printed, in ${BACKUP_KEY_ENV}).`
        : `The backup key file ${path} could not be read (${code ?? error}): run as the user that owns it.`,
    )
  }
  const mode = statSync(path).mode & 0o777
  if (mode & 0o077) {
    throw new BackupError(
      `The backup key file ${path} can be read by other users (mode ${mode.toString(8)}), who could sign a forged backup with it: chmod 600 it, then run the command again.`,
    )
  }
  return { key: parseBackupKey(text, `The backup key file ${path}`), file: path }
}

/** Makes a new backup key in `file` (0600, never replacing one); returns it in hex, to be shown once. */
export function createBackupKeyFile(file: string): { keyFile: string; key: string; keyId: string } {
  const path = resolve(file)
  const key = randomBytes(BACKUP_KEY_BYTES)
  // Missing folders are made private; an existing one (say /etc) keeps its mode: the file itself is 0600.
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
  let fd: number
  try {
    fd = openSync(path, 'wx', PRIVATE_FILE_MODE)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw new BackupError(
      code === 'EEXIST'
        ? `${path} exists already and was left as it is: backups made with it need it; choose another file for a new key.`
        : `The backup key file ${path} could not be written (${code ?? error}): choose a folder this user may write.`,
    )
  }
  try {
    writeSync(fd, `${key.toString('hex')}\n`)
  } finally {
    closeSync(fd)
  }
  setMode(path, PRIVATE_FILE_MODE)
  return { keyFile: path, key: key.toString('hex'), keyId: backupKeyId(key) }
}

/** The manifest's bytes that checksum and MAC cover: everything but those two fields, in the file's order. */
function signedBytes(manifest: Record<string, unknown>): string {
  const { checksum: _checksum, mac: _mac, ...rest } = manifest
  return JSON.stringify(rest)
}

function manifestChecksum(manifest: Record<string, unknown>): string {
  return createHash('sha256').update(signedBytes(manifest)).digest('hex')
}

function manifestMac(manifest: Record<string, unknown>, key: Buffer): string {
  return createHmac('sha256', key).update(signedBytes(manifest)).digest('hex')
}

function blobPath(root: string, sha256Hex: string): string {
  return join(root, 'blobs', sha256Hex.slice(0, 2), sha256Hex)
}

function isInside(folder: string, path: string): boolean {
  return `${resolve(path)}${sep}`.startsWith(`${resolve(folder)}${sep}`)
}

/** Copies a file privately (0600) to `to`, returning its SHA-256 and size as read. */
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
  await pipeline(createReadStream(from), tee, createWriteStream(to, { mode: PRIVATE_FILE_MODE }))
  setMode(to, PRIVATE_FILE_MODE)
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
 * The manifest is signed with the backup key, which never goes into the backup.
 */
export async function backupDataDir(
  dataDir: string,
  to: string,
  backupKey: BackupKey,
  clock: () => Date = () => new Date(),
): Promise<BackupReport> {
  const started = performance.now()
  const source = join(dataDir, DATABASE_FILE)
  if (!existsSync(source)) {
    throw new BackupError(
      `There is no Vault Service database in ${dataDir}: check --data-dir (it is the folder serve runs on).`,
    )
  }
  if (isInside(dataDir, to)) {
    throw new BackupError(
      `The backup folder ${to} is inside the data folder ${dataDir}: give a --to outside it (another disk, ideally), so the backup survives the data folder.`,
    )
  }
  if (backupKey.file && isInside(to, backupKey.file)) {
    throw new BackupError(
      `The backup key file ${backupKey.file} is inside the backup folder ${to}: whoever holds a backup with its key can forge one. ` +
        'Keep the key apart from the backups (next to the config file) and give a --to elsewhere.',
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
      const partial = `${blobPath(to, sha)}.part`
      const copied = await copyHashed(from, partial)
      if (copied.sha256 !== sha) {
        throw new BackupError(
          `The stored blob ${sha} does not hash to its name (the disk under ${dataDir} has damaged it): ` +
            'the asset that uses it cannot be backed up; restore that file from an older backup.',
        )
      }
      await rename(partial, blobPath(to, sha))
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
    const unsigned: Omit<BackupManifest, 'checksum' | 'mac'> = {
      format: BACKUP_FORMAT,
      version: BACKUP_VERSION,
      createdAt,
      schemaVersion,
      counts: { ...counts, blobs: blobs.length, blobBytes: blobs.reduce((sum, blob) => sum + blob.bytes, 0) },
      database: { file: DATABASE_FILE, ...database },
      blobs,
    }
    const keyId = backupKeyId(backupKey.key)
    const manifest: BackupManifest = {
      ...unsigned,
      checksum: manifestChecksum(unsigned),
      mac: { algorithm: MAC_ALGORITHM, keyId, value: manifestMac(unsigned, backupKey.key) },
    }
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
      keyId,
      elapsedMs: Math.round(performance.now() - started),
    }
  }
}

function damaged(from: string, what: string): BackupError {
  return new BackupError(
    `The backup in ${from} is damaged or incomplete (${what}); nothing was restored: use another backup.`,
  )
}

/** A manifest no backup of this service writes: crafted or damaged; said before anything is written. */
function refusedManifest(from: string, raw: unknown, issue: z.core.$ZodIssue): BackupError {
  let value: unknown = raw
  for (const step of issue.path) value = (value as Record<PropertyKey, unknown> | undefined)?.[step]
  const where = issue.path.length ? issue.path.join('.') : 'the manifest'
  const shown = value === undefined ? 'missing' : JSON.stringify(value)?.slice(0, 120)
  return new BackupError(
    `The backup in ${from} was refused: its ${MANIFEST_FILE} says ${where} = ${shown}, which ${issue.message}. ` +
      'admin backup never writes that, so the backup was damaged or crafted to write elsewhere; nothing was written. Use another backup.',
  )
}

function readManifest(from: string): { manifest: BackupManifest; raw: Record<string, unknown> } {
  const path = join(from, MANIFEST_FILE)
  if (!existsSync(path)) {
    throw new BackupError(
      `${from} has no ${MANIFEST_FILE}, so it is not a finished Vault Service backup; nothing was restored: ` +
        'give the folder admin backup wrote as --from, or use another backup.',
    )
  }
  let raw: Record<string, unknown>
  try {
    raw = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>
  } catch {
    throw damaged(from, `${MANIFEST_FILE} is not readable JSON`)
  }
  if (raw === null || typeof raw !== 'object' || raw.format !== BACKUP_FORMAT) {
    throw damaged(from, `${MANIFEST_FILE} is not a backup manifest`)
  }
  if (raw.version !== BACKUP_VERSION && raw.version !== UNSIGNED_VERSION) {
    throw new BackupError(
      `The backup in ${from} has format version ${JSON.stringify(raw.version)}, which this Vault Service does not know: restore it with the version that wrote it or a newer one.`,
    )
  }
  const parsed = manifestSchema.safeParse(raw)
  if (!parsed.success) throw refusedManifest(from, raw, parsed.error.issues[0]!)
  if (parsed.data.checksum !== manifestChecksum(raw)) {
    throw damaged(from, `${MANIFEST_FILE} was changed after the backup was written`)
  }
  return { manifest: parsed.data, raw }
}

/** Whether the manifest is the operator's: checked with the key, or knowingly skipped. Throws otherwise. */
function checkAuthenticity(
  from: string,
  manifest: BackupManifest,
  raw: Record<string, unknown>,
  options: RestoreOptions,
): RestoreReport['tamperCheck'] {
  const { mac } = manifest
  const skip = `If you know nobody could have changed it, run restore again with ${SKIP_TAMPER_CHECK_FLAG} (its checksum then catches accidental damage only).`
  if (manifest.version === BACKUP_VERSION && !mac) throw damaged(from, `${MANIFEST_FILE} has no MAC`)
  if (!mac) {
    if (options.skipTamperCheck) return 'skipped'
    throw new BackupError(
      `The backup in ${from} was made before backups were signed: its checksum catches accidental damage, but anyone ` +
        `who could write to it could change the database and recompute the checksum. Nothing was restored. ${skip}`,
    )
  }
  if (!options.key) {
    if (options.skipTamperCheck) return 'skipped'
    throw new BackupError(
      `The backup in ${from} is signed with the backup key ${mac.keyId}, and no key was given, so it cannot be checked; nothing was restored: ` +
        `pass --backup-key-file <file> (the file init wrote) or the key init printed in ${BACKUP_KEY_ENV}. ` +
        `If that key is lost and you know nobody could have changed the backup, ${SKIP_TAMPER_CHECK_FLAG} restores it unchecked.`,
    )
  }
  const given = backupKeyId(options.key)
  if (given !== mac.keyId) {
    throw new BackupError(
      `The backup in ${from} was signed with the backup key ${mac.keyId}, not with the key given (${given}); nothing was restored: ` +
        'give the backup key of the service that made this backup.',
    )
  }
  const expected = Buffer.from(manifestMac(raw, options.key), 'hex')
  if (!timingSafeEqual(expected, Buffer.from(mac.value, 'hex'))) {
    throw new BackupError(
      `The backup in ${from} was changed after it was written: its ${MANIFEST_FILE} does not carry a valid MAC under your backup key ` +
        '(its checksum can be recomputed by anyone, the MAC only with the key). Nothing was restored: use another backup, ' +
        'and find out who could write where your backups are kept.',
    )
  }
  return 'verified'
}

/** A file restore reads must be a plain file in the backup (not a device, a FIFO or a folder). */
function requireFile(from: string, path: string, what: string): void {
  let stat: ReturnType<typeof statSync>
  try {
    stat = statSync(path)
  } catch {
    throw damaged(from, `${what} is missing`)
  }
  if (!stat.isFile()) throw damaged(from, `${what} is not a plain file`)
}

export interface RestoreOptions {
  /** The operator's backup key; the manifest's MAC is checked with it. */
  key?: Buffer
  /** Restore a backup whose MAC cannot be checked (made before signing, or the key is lost). */
  skipTamperCheck?: boolean
}

/**
 * Restores the backup in `from` into dataDir, which must be empty or missing (init's config file and backup
 * key may be there already: a new machine is often set up before its data comes back). Everything about the manifest
 * (names, checksum, MAC) is checked before anything is written. The data directory is then locked, so a
 * service started on it at the same moment is refused; each file is copied into a staging folder inside it and
 * moved into place only once its hash and size match the manifest. On any failure dataDir is left as it was
 * (emptied, or removed if restore created it) and the error says what happened.
 */
export async function restoreDataDir(
  from: string,
  dataDir: string,
  options: RestoreOptions = {},
): Promise<RestoreReport> {
  if (!existsSync(from)) {
    throw new BackupError(`There is no backup at ${from}: check --from (the folder admin backup wrote).`)
  }
  const { manifest, raw } = readManifest(from)
  const tamperCheck = checkAuthenticity(from, manifest, raw, options)
  if (existsSync(dataDir) && readdirSync(dataDir).some((name) => !SET_UP_FILES.has(name))) {
    const running = existsSync(join(dataDir, 'service.lock'))
    throw new BackupError(
      `The data folder ${dataDir} is not empty${running ? ' (a Vault Service may be running on it)' : ''}: ` +
        'restore into a new or empty folder (a config file and backup key from init may be in it), so no existing data is overwritten.',
    )
  }
  requireFile(from, join(from, DATABASE_FILE), DATABASE_FILE)
  for (const blob of manifest.blobs) requireFile(from, blobPath(from, blob.sha256), `the blob ${blob.sha256}`)
  const created = !existsSync(dataDir)
  const unlock = lockDataDir(dataDir)
  const staging = join(dataDir, RESTORE_STAGING)
  /** Copies into staging, checks, then moves into place. */
  const place = async (source: string, target: string, expected: { sha256: string; bytes: number }) => {
    const temp = join(staging, expected.sha256)
    const copied = await copyHashed(source, temp)
    if (copied.sha256 !== expected.sha256 || copied.bytes !== expected.bytes) {
      throw damaged(from, `${source.slice(from.length + 1)} does not match the manifest`)
    }
    makePrivateDir(dirname(target))
    renameSync(temp, target)
  }
  try {
    makePrivateDir(staging)
    await place(join(from, DATABASE_FILE), join(dataDir, DATABASE_FILE), manifest.database)
    for (const blob of manifest.blobs) {
      await place(blobPath(from, blob.sha256), blobPath(dataDir, blob.sha256), blob)
    }
    rmSync(staging, { recursive: true, force: true })
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
    if (created) rmSync(dataDir, { recursive: true, force: true })
    else {
      for (const name of readdirSync(dataDir)) {
        if (!SET_UP_FILES.has(name)) rmSync(join(dataDir, name), { recursive: true, force: true })
      }
    }
    if (error instanceof BackupError) throw error
    throw new BackupError(
      `Restoring ${from} into ${dataDir} failed: ${(error as Error).message ?? error}; the data folder was left as it was before.`,
    )
  }
  unlock()
  return { dataDir, createdAt: manifest.createdAt, counts: manifest.counts, tamperCheck }
}
