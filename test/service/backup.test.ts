// admin backup / admin restore: a snapshot taken while uploads are in flight restores every committed asset
// byte for byte and every balance exactly; damaged backups and occupied data folders are refused; a crafted
// manifest writes nothing anywhere, and a database changed with a recomputed checksum is refused by the MAC.
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { createHash, createHmac } from 'node:crypto'
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  BackupError,
  type BackupKey,
  type BackupManifest,
  type BackupReport,
  backupDataDir,
  createBackupKeyFile,
  MANIFEST_FILE,
  readBackupKeyFile,
  restoreDataDir,
} from '../../src/service/backup'
import { type RunningService, startService } from '../../src/service/index'
import { buildServiceCli, call, startTestService, type TestService, uploadForm } from './harness'

const run = promisify(execFile)

const root = mkdtempSync(join(tmpdir(), 'vault-backup-test-'))
const backupDir = join(root, 'backup')
const restoredDir = join(root, 'restored')

interface Owner {
  accountId: string
  apiKey: string
  vaultId: string
}

let t: TestService
let owners: Owner[]
/** Uploaded content by filename, whether or not its upload had finished when the backup was taken. */
const contents = new Map<string, Uint8Array>()
const committedBeforeBackup = new Set<string>()
/** What each finished upload cost, by filename. */
const cost = new Map<string, number>()
let report: BackupReport
let restored: RunningService
/** The operator's backup key, kept apart from the backups (as init does, next to the config). */
let backupKey: BackupKey

function content(index: number): Uint8Array {
  // Distinct, non-trivial bytes per file (a fill would let a wrong blob of the same size pass).
  // Files 5 and up are large, so they are still streaming when the backup starts.
  const bytes = new Uint8Array(index < 5 ? 1_500_000 + index * 250_000 : 12_000_000 + index * 250_000)
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31 + index * 7) & 0xff
  return bytes
}

async function upload(owner: Owner, index: number): Promise<string> {
  const filename = `file-${index}.bin`
  const bytes = content(index)
  contents.set(filename, bytes)
  const reply = await call(t.url, 'POST', `/api/vault/${owner.vaultId}/asset`, {
    key: owner.apiKey,
    body: uploadForm(bytes, { filename }),
  })
  expect(reply.status).toBe(201)
  cost.set(filename, reply.body.data.creditsConsumed)
  return filename
}

beforeAll(async () => {
  t = await startTestService()
  owners = [t.owner]
  for (const email of ['second@example.com', 'third@example.com']) {
    const { accountId, apiKey } = await t.service.admin.createAccount({ email })
    const { vaultId } = await t.service.admin.createVault({ account: accountId, preset: 'standard' })
    owners.push({ accountId, apiKey, vaultId })
  }
  for (const owner of owners) await t.service.admin.addCredits({ account: owner.accountId, credits: 1000 })
  // An heir, so a tampered backup can change an heir's e-mail.
  const heir = await call(t.url, 'POST', `/api/vault/${owners[0]!.vaultId}/heir`, {
    key: owners[0]!.apiKey,
    json: { name: 'Heir', email: 'heir@example.com' },
  })
  expect(heir.status).toBe(201)
  // Committed before the snapshot: these must all come back.
  await Promise.all([0, 1, 2, 3].map((i) => upload(owners[i % owners.length]!, i)))
  for (let i = 0; i < 4; i++) committedBeforeBackup.add(`file-${i}.bin`)
  // In flight while the snapshot is taken: each may or may not be in it, but whatever is must be whole.
  const inFlight = [4, 5, 6, 7, 8, 9].map((i) => upload(owners[i % owners.length]!, i))
  // File 4 is small: the first to finish. The backup starts at once, while the large ones still stream.
  committedBeforeBackup.add(await Promise.race(inFlight))
  backupKey = readBackupKeyFile(createBackupKeyFile(join(root, 'keys', 'backup.key')).keyFile)
  report = await backupDataDir(t.dataDir, backupDir, backupKey)
  await Promise.all(inFlight)
  await restoreDataDir(backupDir, restoredDir, { key: backupKey.key })
  restored = await startService({ dataDir: restoredDir, rateLimits: false })
}, 120_000)

afterAll(async () => {
  await restored?.close()
  await t?.stop()
  rmSync(root, { recursive: true, force: true })
})

describe('admin backup and restore', () => {
  it('restores every asset committed before the snapshot, byte for byte, and every balance exactly', async () => {
    console.log(
      `backup: ${report.counts.assets} assets, ${report.counts.blobs} blobs, ${report.counts.blobBytes} blob bytes, ` +
        `database ${report.databaseBytes} bytes, ${report.elapsedMs} ms (${contents.size} uploaded in all)`,
    )
    const listed = new Set<string>()
    for (const owner of owners) {
      const assets = await call(restored.url, 'GET', `/api/vault/${owner.vaultId}/asset?limit=100`, {
        key: owner.apiKey,
      })
      expect(assets.status).toBe(200)
      let consumed = 0
      for (const asset of assets.body.data) {
        listed.add(asset.filename)
        consumed += cost.get(asset.filename)!
        const response = await fetch(`${restored.url}/api/vault/${owner.vaultId}/asset/${asset.id}/content`, {
          headers: { 'x-api-key': owner.apiKey },
        })
        expect(response.status).toBe(200)
        const bytes = new Uint8Array(await response.arrayBuffer())
        expect(Buffer.compare(bytes, contents.get(asset.filename)!)).toBe(0)
      }
      const vault = await call(restored.url, 'GET', `/api/vault/${owner.vaultId}`, { key: owner.apiKey })
      expect(vault.body.data.assetCount).toBe(assets.body.data.length)
      // 100 trial credits and 1000 added, less exactly what the restored assets cost.
      expect(vault.body.data.creditsBalance).toBe(1100 - consumed)
    }
    for (const filename of committedBeforeBackup) expect(listed.has(filename)).toBe(true)
    expect(listed.size).toBe(report.counts.assets)
  })

  it('keeps the backup and the restored data folder private (files 0600, folders 0700)', () => {
    for (const dir of [backupDir, restoredDir]) {
      const walk = (path: string): void => {
        const stat = statSync(path)
        if (stat.isDirectory()) {
          expect(stat.mode & 0o777, path).toBe(0o700)
          for (const name of readdirSync(path)) walk(join(path, name))
        } else {
          expect(stat.mode & 0o777, path).toBe(0o600)
        }
      }
      walk(dir)
    }
  })

  it('writes a manifest whose checksums match the files', () => {
    const manifest = JSON.parse(readFileSync(join(backupDir, MANIFEST_FILE), 'utf8')) as BackupManifest
    expect(manifest.counts.accounts).toBe(3)
    expect(manifest.counts.vaults).toBe(3)
    const database = readFileSync(join(backupDir, manifest.database.file))
    expect(createHash('sha256').update(database).digest('hex')).toBe(manifest.database.sha256)
    expect(manifest.blobs.length).toBe(manifest.counts.blobs)
  })

  it('refuses a data folder that is not empty, such as one a service runs on', async () => {
    const error = await restoreDataDir(backupDir, t.dataDir, { key: backupKey.key }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(BackupError)
    expect((error as Error).message).toMatch(
      /is not empty \(a Vault Service may be running on it\).*empty folder/,
    )
  })

  it('refuses a backup with a missing blob before writing anything', async () => {
    const damaged = join(root, 'missing-blob')
    cpSync(backupDir, damaged, { recursive: true })
    const manifest = JSON.parse(readFileSync(join(damaged, MANIFEST_FILE), 'utf8')) as BackupManifest
    const sha = manifest.blobs[0]!.sha256
    unlinkSync(join(damaged, 'blobs', sha.slice(0, 2), sha))
    const target = join(root, 'target-missing-blob')
    const error = await restoreDataDir(damaged, target, { key: backupKey.key }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(BackupError)
    expect((error as Error).message).toContain(`damaged or incomplete (the blob ${sha} is missing)`)
    expect(existsSync(target)).toBe(false)
  })

  it('refuses a blob whose bytes changed, and leaves an empty data folder empty', async () => {
    const damaged = join(root, 'changed-blob')
    cpSync(backupDir, damaged, { recursive: true })
    const manifest = JSON.parse(readFileSync(join(damaged, MANIFEST_FILE), 'utf8')) as BackupManifest
    const sha = manifest.blobs[1]!.sha256
    const path = join(damaged, 'blobs', sha.slice(0, 2), sha)
    const bytes = readFileSync(path)
    bytes[0] = bytes[0]! ^ 0xff
    writeFileSync(path, bytes)
    const target = join(root, 'target-changed-blob')
    mkdirSync(target)
    const error = await restoreDataDir(damaged, target, { key: backupKey.key }).catch((e: unknown) => e)
    expect((error as Error).message).toContain(
      `(blobs/${sha.slice(0, 2)}/${sha} does not match the manifest)`,
    )
    expect(readdirSync(target)).toEqual([])
  })

  it('refuses a tampered manifest and a backup without one', async () => {
    const tampered = join(root, 'tampered')
    cpSync(backupDir, tampered, { recursive: true })
    const manifest = JSON.parse(readFileSync(join(tampered, MANIFEST_FILE), 'utf8')) as BackupManifest
    manifest.counts.assets += 1
    writeFileSync(join(tampered, MANIFEST_FILE), JSON.stringify(manifest))
    const error = await restoreDataDir(tampered, join(root, 'target-tampered'), { key: backupKey.key }).catch(
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(BackupError)
    expect((error as Error).message).toContain('was changed after the backup was written')

    unlinkSync(join(tampered, MANIFEST_FILE))
    const unfinished = await restoreDataDir(tampered, join(root, 'target-unfinished')).catch(
      (e: unknown) => e,
    )
    expect((unfinished as Error).message).toMatch(/has no manifest\.json, so it is not a finished/)
  })

  it('refuses to back up into a folder that is not empty, or inside the data folder', async () => {
    const error = await backupDataDir(t.dataDir, backupDir, backupKey).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(BackupError)
    expect((error as Error).message).toContain('is not empty')
    const inside = await backupDataDir(t.dataDir, join(t.dataDir, 'backup'), backupKey).catch(
      (e: unknown) => e,
    )
    expect((inside as Error).message).toContain('is inside the data folder')
  })

  it('refuses to write a backup into the folder that holds the backup key', async () => {
    const keyFolder = join(root, 'keys')
    const error = await backupDataDir(t.dataDir, keyFolder, backupKey).catch((e: unknown) => e)
    expect((error as Error).message).toMatch(
      /The backup key file .* is inside the backup folder .*keys: .*forge/,
    )
    expect(readdirSync(keyFolder)).toEqual(['backup.key'])
  })

  it('also backs up a data folder no service runs on', async () => {
    const to = join(root, 'from-stopped')
    await restored.close()
    const again = await backupDataDir(restoredDir, to, backupKey)
    expect(again.counts).toEqual(report.counts)
    restored = await startService({ dataDir: restoredDir, rateLimits: false })
  })
})

/** The checksum as admin backup computes it: SHA-256 of the manifest's JSON without checksum and mac. */
function signedBytes(manifest: Record<string, unknown>): string {
  const { checksum: _checksum, mac: _mac, ...rest } = manifest
  return JSON.stringify(rest)
}

/**
 * A copy of the backup edited by someone who can write where backups are kept: the checksum recomputed, as
 * anyone can; `signWith` also recomputes the MAC, as only the key's holder can (to show that what restore
 * refuses on names it refuses whatever the MAC says).
 */
function craft(
  name: string,
  // biome-ignore lint/suspicious/noExplicitAny: the point is to write what no BackupManifest allows
  edit: (manifest: Record<string, any>, folder: string) => void,
  signWith?: Buffer,
): string {
  const folder = join(root, 'crafted', name, 'backup')
  mkdirSync(join(folder, '..'), { recursive: true })
  cpSync(backupDir, folder, { recursive: true })
  const manifest = JSON.parse(readFileSync(join(folder, MANIFEST_FILE), 'utf8'))
  edit(manifest, folder)
  manifest.checksum = createHash('sha256').update(signedBytes(manifest)).digest('hex')
  if (signWith)
    manifest.mac.value = createHmac('sha256', signWith).update(signedBytes(manifest)).digest('hex')
  writeFileSync(join(folder, MANIFEST_FILE), JSON.stringify(manifest, null, 2))
  return folder
}

/** Everything below `folder`, with contents, to show that a refused restore changed nothing. */
function snapshot(folder: string): Record<string, string> {
  const files: Record<string, string> = {}
  const walk = (path: string, relative: string): void => {
    if (statSync(path).isDirectory()) {
      files[`${relative}/`] = ''
      for (const entry of readdirSync(path)) walk(join(path, entry), `${relative}/${entry}`)
    } else {
      files[relative] = createHash('sha256').update(readFileSync(path)).digest('hex')
    }
  }
  walk(folder, '')
  return files
}

describe('a crafted or tampered backup', () => {
  /** Restores into an empty folder deep inside `area`; returns the error, and checks area did not change. */
  async function refusedRestore(from: string, area: string, options: Parameters<typeof restoreDataDir>[2]) {
    const target = join(area, 'srv', 'data')
    mkdirSync(target, { recursive: true })
    // What a "../../x" from the data folder, or from the backup's blobs folder, would reach.
    writeFileSync(join(area, 'outside'), 'untouched')
    writeFileSync(join(area, 'srv', 'outside'), 'untouched')
    const before = snapshot(area)
    const error = await restoreDataDir(from, target, options).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(BackupError)
    expect(snapshot(area)).toEqual(before)
    return (error as Error).message
  }

  it('refuses blob names that are not 64 hex digits before writing anything, whatever the MAC says', async () => {
    const names = [
      '../../outside',
      join(root, 'crafted', 'absolute-target'),
      'zz'.repeat(32),
      'AB'.repeat(32),
    ]
    for (const [index, name] of names.entries()) {
      const area = join(root, 'crafted', `area-blob-${index}`)
      const from = craft(
        `blob-${index}`,
        (manifest, folder) => {
          // The file such a name would copy from, so only the name check stands between it and the disk.
          const source = join(folder, 'blobs', name.slice(0, 2), name)
          mkdirSync(join(source, '..'), { recursive: true })
          writeFileSync(source, 'crafted bytes')
          manifest.blobs[0] = { sha256: name, bytes: 'crafted bytes'.length }
        },
        backupKey.key,
      )
      const message = await refusedRestore(from, area, { key: backupKey.key })
      expect(message).toContain(`its manifest.json says blobs.0.sha256 = ${JSON.stringify(name)}`)
      expect(message).toMatch(/not 64 lowercase hex digits .*nothing was written\. Use another backup\./)
      expect(existsSync(join(root, 'crafted', 'absolute-target'))).toBe(false)
    }
  })

  it('refuses a database entry other than vault.sqlite3 before writing anything', async () => {
    for (const [index, file] of [
      '../../outside',
      join(root, 'crafted', 'db-elsewhere'),
      'other.sqlite3',
    ].entries()) {
      const from = craft(
        `database-${index}`,
        (manifest, folder) => {
          cpSync(join(folder, 'vault.sqlite3'), join(folder, file))
          manifest.database.file = file
        },
        backupKey.key,
      )
      const message = await refusedRestore(from, join(root, 'crafted', `area-db-${index}`), {
        key: backupKey.key,
      })
      expect(message).toContain(`database.file = ${JSON.stringify(file)}, which is not vault.sqlite3`)
    }
  })

  /** The backup with its database changed by `change` and the manifest's hashes recomputed, without the key. */
  function tamperedDatabase(name: string, change: (db: Database.Database) => void): string {
    return craft(name, (manifest, folder) => {
      const db = new Database(join(folder, 'vault.sqlite3'))
      change(db)
      db.close()
      const bytes = readFileSync(join(folder, 'vault.sqlite3'))
      manifest.database.sha256 = createHash('sha256').update(bytes).digest('hex')
      manifest.database.bytes = bytes.length
    })
  }

  it('refuses a database changed with a recomputed checksum (an added key hash, a changed heir e-mail)', async () => {
    const addedKey = tamperedDatabase('added-key', (db) => {
      db.prepare(
        "INSERT INTO api_keys (id, account_id, kind, key_hash, created_at) VALUES ('key_forged', ?, 'human', ?, ?)",
      ).run(
        owners[0]!.accountId,
        createHash('sha256').update('sk_human_forged').digest(),
        new Date().toISOString(),
      )
    })
    const changedHeir = tamperedDatabase('changed-heir', (db) => {
      expect(db.prepare("UPDATE heirs SET email = 'thief@example.net'").run().changes).toBe(1)
    })
    for (const [index, from] of [addedKey, changedHeir].entries()) {
      const area = join(root, 'crafted', `area-tampered-${index}`)
      const message = await refusedRestore(from, area, { key: backupKey.key })
      expect(message).toMatch(
        /was changed after it was written: its manifest\.json does not carry a valid MAC under your backup key .*Nothing was restored/,
      )
      // Without the key it is not restored either: restore says which key it needs.
      expect(await refusedRestore(from, area, {})).toMatch(
        new RegExp(`signed with the backup key ${report.keyId}, and no key was given.*--backup-key-file`),
      )
    }
    const otherKey = Buffer.alloc(32, 7)
    expect(
      await refusedRestore(backupDir, join(root, 'crafted', 'area-other-key'), { key: otherKey }),
    ).toMatch(
      /not with the key given \([0-9a-f]{16}\).*give the backup key of the service that made this backup/,
    )
  })

  it('restores a backup made before signing only on --skip-tamper-check, which says what it gives up', async () => {
    const unsigned = craft('unsigned', (manifest) => {
      manifest.version = 1
      delete manifest.mac
    })
    const message = await refusedRestore(unsigned, join(root, 'crafted', 'area-unsigned'), {
      key: backupKey.key,
    })
    expect(message).toMatch(
      /made before backups were signed: its checksum catches accidental damage, but anyone who could write to it could change the database and recompute the checksum\. Nothing was restored\. .*--skip-tamper-check/,
    )
    const target = join(root, 'crafted', 'restored-unsigned')
    const done = await restoreDataDir(unsigned, target, { skipTamperCheck: true })
    expect(done).toMatchObject({ tamperCheck: 'skipped', counts: report.counts })
    expect(existsSync(join(target, 'vault.sqlite3'))).toBe(true)
    // The happy path says it checked.
    const checked = await restoreDataDir(backupDir, join(root, 'crafted', 'restored-signed'), {
      key: backupKey.key,
    })
    expect(checked.tamperCheck).toBe('verified')
  })
})

describe('admin backup and restore from the command line', () => {
  let cli = ''
  const children: ChildProcess[] = []
  beforeAll(async () => {
    cli = await buildServiceCli()
  }, 60_000)
  afterAll(() => {
    for (const child of children) child.kill('SIGTERM')
    rmSync(cli, { force: true })
  })

  // biome-ignore lint/suspicious/noExplicitAny: replies are checked field by field, as harness.ts's Reply does
  async function admin(...args: (string | Record<string, string>)[]): Promise<{ code: number; json: any }> {
    const env = { ...process.env, ...args.find((arg) => typeof arg !== 'string') }
    const words = args.filter((arg) => typeof arg === 'string')
    try {
      const { stdout } = await run(process.execPath, [cli, 'admin', ...words], { env })
      return { code: 0, json: JSON.parse(stdout) }
    } catch (error) {
      const { code, stdout } = error as { code: number; stdout: string }
      return { code, json: JSON.parse(stdout) }
    }
  }

  async function serve(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
    const child = spawn(process.execPath, [cli, 'serve', '--data-dir', dataDir, '--no-rate-limits'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    children.push(child)
    const url = await new Promise<string>((resolve, reject) => {
      let stdout = ''
      child.stdout!.on('data', (data) => {
        stdout += data
        const match = /^listening on (\S+)$/m.exec(stdout)
        if (match) resolve(match[1]!)
      })
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}`)))
    })
    return { child, url }
  }

  it('backs up a running service and serves the restored copy elsewhere', async () => {
    const live = join(root, 'cli-live')
    const copy = join(root, 'cli-backup')
    const target = join(root, 'cli-restored')
    const account = await admin('create-account', '--email', 'cli@example.com', '--data-dir', live)
    const vault = await admin('create-vault', '--account', account.json.accountId, '--data-dir', live)
    const { child, url } = await serve(live)
    const bytes = content(3)
    const uploaded = await call(url, 'POST', `/api/vault/${vault.json.vaultId}/asset`, {
      key: account.json.apiKey,
      body: uploadForm(bytes, { filename: 'cli.bin' }),
    })
    expect(uploaded.status).toBe(201)

    // Without a key (no config names one) the backup is refused with how to make one.
    const keyless = await admin('backup', '--data-dir', live, '--to', copy)
    expect(keyless.code).toBe(1)
    expect(keyless.json.error).toMatch(/none is set: .*admin create-backup-key --backup-key-file <file>/)
    const keyFile = join(root, 'cli-keys', 'backup.key')
    const made = await admin('create-backup-key', '--data-dir', live, '--backup-key-file', keyFile)
    expect(made.json).toEqual({
      keyFile,
      key: expect.stringMatching(/^[0-9a-f]{64}$/),
      keyId: expect.stringMatching(/^[0-9a-f]{16}$/),
    })
    expect(statSync(keyFile).mode & 0o777).toBe(0o600)
    const twice = await admin('create-backup-key', '--data-dir', live, '--backup-key-file', keyFile)
    expect(twice.json.error).toMatch(/exists already and was left as it is/)
    const backup = await admin('backup', '--data-dir', live, '--to', copy, '--backup-key-file', keyFile)
    expect(backup).toMatchObject({
      code: 0,
      json: { to: copy, counts: { accounts: 1, vaults: 1, assets: 1 }, keyId: made.json.keyId },
    })
    // A service runs on `live`: restoring over it is refused, as one JSON error.
    const refused = await admin('restore', '--from', copy, '--data-dir', live, '--backup-key-file', keyFile)
    expect(refused.code).toBe(1)
    expect(refused.json.error).toMatch(/is not empty \(a Vault Service may be running on it\)/)
    child.kill('SIGTERM')

    const unkeyed = await admin('restore', '--from', copy, '--data-dir', target)
    expect(unkeyed.json.error).toMatch(/no key was given, so it cannot be checked; nothing was restored/)
    expect(existsSync(target)).toBe(false)
    // The key as typed from where the operator keeps it (VAULT_BACKUP_KEY), no file needed.
    expect(
      await admin('restore', '--from', copy, '--data-dir', target, { VAULT_BACKUP_KEY: made.json.key }),
    ).toMatchObject({
      code: 0,
      json: { dataDir: target, counts: { assets: 1 }, tamperCheck: 'verified' },
    })
    const second = await serve(target)
    const asset = uploaded.body.data
    const response = await fetch(`${second.url}/api/vault/${vault.json.vaultId}/asset/${asset.id}/content`, {
      headers: { 'x-api-key': account.json.apiKey },
    })
    expect(Buffer.compare(new Uint8Array(await response.arrayBuffer()), bytes)).toBe(0)
    const balance = await call(second.url, 'GET', `/api/vault/${vault.json.vaultId}`, {
      key: account.json.apiKey,
    })
    expect(balance.body.data.creditsBalance).toBe(100 - asset.creditsConsumed)
    second.child.kill('SIGTERM')
  }, 60_000)
})
