// admin backup / admin restore: a snapshot taken while uploads are in flight restores every committed asset
// byte for byte and every balance exactly; damaged backups and occupied data folders are refused.
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  cpSync,
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
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  BackupError,
  type BackupManifest,
  type BackupReport,
  backupDataDir,
  MANIFEST_FILE,
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
  // Committed before the snapshot: these must all come back.
  await Promise.all([0, 1, 2, 3].map((i) => upload(owners[i % owners.length]!, i)))
  for (let i = 0; i < 4; i++) committedBeforeBackup.add(`file-${i}.bin`)
  // In flight while the snapshot is taken: each may or may not be in it, but whatever is must be whole.
  const inFlight = [4, 5, 6, 7, 8, 9].map((i) => upload(owners[i % owners.length]!, i))
  // File 4 is small: the first to finish. The backup starts at once, while the large ones still stream.
  committedBeforeBackup.add(await Promise.race(inFlight))
  report = await backupDataDir(t.dataDir, backupDir)
  await Promise.all(inFlight)
  await restoreDataDir(backupDir, restoredDir)
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
    const error = await restoreDataDir(backupDir, t.dataDir).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(BackupError)
    expect((error as Error).message).toMatch(
      /is not empty \(a Vault Service may be running on it\).*empty folder/,
    )
  })

  it('refuses a backup with a missing blob and leaves the target empty', async () => {
    const damaged = join(root, 'missing-blob')
    cpSync(backupDir, damaged, { recursive: true })
    const manifest = JSON.parse(readFileSync(join(damaged, MANIFEST_FILE), 'utf8')) as BackupManifest
    const sha = manifest.blobs[0]!.sha256
    unlinkSync(join(damaged, 'blobs', sha.slice(0, 2), sha))
    const target = join(root, 'target-missing-blob')
    const error = await restoreDataDir(damaged, target).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(BackupError)
    expect((error as Error).message).toContain(`damaged or incomplete (the blob ${sha} is missing)`)
    expect(readdirSync(target)).toEqual([])
  })

  it('refuses a tampered manifest and a backup without one', async () => {
    const tampered = join(root, 'tampered')
    cpSync(backupDir, tampered, { recursive: true })
    const manifest = JSON.parse(readFileSync(join(tampered, MANIFEST_FILE), 'utf8')) as BackupManifest
    manifest.counts.assets += 1
    writeFileSync(join(tampered, MANIFEST_FILE), JSON.stringify(manifest))
    const error = await restoreDataDir(tampered, join(root, 'target-tampered')).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(BackupError)
    expect((error as Error).message).toContain('was changed after the backup was written')

    unlinkSync(join(tampered, MANIFEST_FILE))
    const unfinished = await restoreDataDir(tampered, join(root, 'target-unfinished')).catch(
      (e: unknown) => e,
    )
    expect((unfinished as Error).message).toMatch(/has no manifest\.json, so it is not a finished/)
  })

  it('refuses to back up into a folder that is not empty, or inside the data folder', async () => {
    const error = await backupDataDir(t.dataDir, backupDir).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(BackupError)
    expect((error as Error).message).toContain('is not empty')
    const inside = await backupDataDir(t.dataDir, join(t.dataDir, 'backup')).catch((e: unknown) => e)
    expect((inside as Error).message).toContain('is inside the data folder')
  })

  it('also backs up a data folder no service runs on', async () => {
    const to = join(root, 'from-stopped')
    await restored.close()
    const again = await backupDataDir(restoredDir, to)
    expect(again.counts).toEqual(report.counts)
    restored = await startService({ dataDir: restoredDir, rateLimits: false })
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
  async function admin(...args: string[]): Promise<{ code: number; json: any }> {
    try {
      const { stdout } = await run(process.execPath, [cli, 'admin', ...args])
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

    const backup = await admin('backup', '--data-dir', live, '--to', copy)
    expect(backup).toMatchObject({
      code: 0,
      json: { to: copy, counts: { accounts: 1, vaults: 1, assets: 1 } },
    })
    // A service runs on `live`: restoring over it is refused, as one JSON error.
    const refused = await admin('restore', '--from', copy, '--data-dir', live)
    expect(refused.code).toBe(1)
    expect(refused.json.error).toMatch(/is not empty \(a Vault Service may be running on it\)/)
    child.kill('SIGTERM')

    expect(await admin('restore', '--from', copy, '--data-dir', target)).toMatchObject({
      code: 0,
      json: { dataDir: target, counts: { assets: 1 } },
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
