// An heir's recovery from the vault service when the vault holds bundles (many small files in one
// encrypted file): every file inside is recovered and listed on its own, the newest copy of a file
// wins (by the write time sealed in each copy, never the service's dates), older copies
// are listed as superseded, and a bundle damaged on the service keeps the files before the damage.
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DOWNLOADS_FOLDER, describeHeirResult, recoverFromService } from '../../src/recovery/heir-recovery'
import {
  collectBytes,
  encryptBundleStream,
  encryptStream,
  generateVaultKey,
  HEADER_SIZE,
  SEALED_CHUNK_SIZE,
} from '../../src/vault-format'
import { call, DAY_MS, startTestService, type TestService, uploadForm } from '../service/harness'

const vaultKey = generateVaultKey()
let t: TestService
let vaultId: string
let token: string
let outRoot: string

async function bundle(createdAtMs: number, files: Record<string, string | Buffer>): Promise<Buffer> {
  const entries = Object.entries(files).map(([path, content]) => {
    const bytes = Buffer.from(content)
    return { identity: { path, size: bytes.length }, content: () => [bytes] }
  })
  return Buffer.from(await collectBytes(encryptBundleStream(entries, { vaultKey, vaultId, createdAtMs })))
}

async function single(path: string, text: string): Promise<Buffer> {
  const bytes = Buffer.from(text)
  return Buffer.from(
    await collectBytes(
      encryptStream([bytes], {
        vaultKey,
        vaultId,
        identity: { path, size: bytes.length, writtenAtMs: t.now().getTime() },
      }),
    ),
  )
}

async function upload(name: string, blob: Buffer): Promise<void> {
  const reply = await call(t.url, 'POST', `/api/vault/${vaultId}/asset`, {
    key: t.owner.apiKey,
    body: uploadForm(blob, { filename: name }),
  })
  expect(reply.status).toBe(201)
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true })
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort()
}

beforeAll(async () => {
  t = await startTestService()
  vaultId = t.owner.vaultId
  await t.service.admin.addCredits({ account: t.owner.accountId, credits: 1000 })
  outRoot = join(t.dataDir, 'heir')
  const now = t.now().getTime()
  const big = Buffer.alloc(60_000, 7)
  // Uploaded newest first, so the service's order is not the order of the sealed dates.
  await upload('bundle-new.vault', await bundle(now - DAY_MS, { 'letters/will.txt': 'the final will' }))
  await upload(
    'bundle-old.vault',
    await bundle(now - 3 * DAY_MS, {
      'letters/will.txt': 'a draft will',
      'photos/cat.jpg': big,
      'notes.txt': 'old notes, replaced by a single blob since',
    }),
  )
  // A single-file blob seals its write time (now), which makes it newer than both bundles; the
  // service's upload times and listing order play no part.
  await upload('notes.txt.vault', await single('notes.txt', 'the newest notes'))
  // A bundle damaged on the service: the byte lies in its third chunk, in b.bin.
  const damaged = await bundle(now - 2 * DAY_MS, {
    'damaged/a.bin': Buffer.alloc(20_000, 1),
    'damaged/b.bin': Buffer.alloc(20_000, 2),
    'damaged/c.bin': Buffer.alloc(20_000, 3),
  })
  damaged[HEADER_SIZE + 2 * SEALED_CHUNK_SIZE + 100]! ^= 1
  await upload('bundle-damaged.vault', damaged)

  const heir = await call(t.url, 'POST', `/api/vault/${vaultId}/heir`, {
    key: t.owner.apiKey,
    json: { name: 'Hana Heir', email: 'hana@example.com' },
  })
  expect(heir.status).toBe(201)
  await t.service.admin.startRelease({ vault: vaultId })
  t.advance(30 * DAY_MS + 60_000)
  expect((await t.service.tick()).released.map((r) => r.vaultId)).toEqual([vaultId])
  const mail = (await t.service.admin.outbox({ vault: vaultId })).messages.find(
    (m) => m.to === 'hana@example.com' && /hk_/.test(m.body),
  )!
  token = /(hk_[A-Za-z0-9_-]{43})/.exec(mail.body)![1]!
}, 60_000)

afterAll(() => t?.stop())

describe('heir recovery of bundles', () => {
  it('lists and recovers every file inside; the newest copy wins; a damaged bundle keeps what came before', async () => {
    const outDir = join(outRoot, 'first')
    const report = await recoverFromService({
      serviceUrl: t.url,
      accessToken: token,
      vaultId,
      vaultKey,
      outDir,
    })
    expect(report.stopped).toBeUndefined()
    const rows = report.results.map((r) => [r.name, r.status])
    // Files written as they are met (the service's order), then the copies left out.
    expect(rows).toEqual([
      ['letters/will.txt', 'recovered'],
      ['photos/cat.jpg', 'recovered'],
      ['notes.txt', 'recovered'],
      ['damaged/a.bin', 'recovered'],
      ['damaged/b.bin', 'failed'],
      ['damaged/c.bin', 'failed'],
      ['letters/will.txt', 'superseded'],
      ['notes.txt', 'superseded'],
    ])
    const byRow = (name: string, status: string) =>
      report.results.find((r) => r.name === name && r.status === status)!
    expect(byRow('damaged/b.bin', 'failed')).toMatchObject({
      reason: 'damaged',
      detail: expect.stringMatching(/altered/),
    })
    expect(byRow('damaged/b.bin', 'failed').message).toMatch(
      /bundle holding this file .* was changed or damaged/,
    )
    expect(byRow('letters/will.txt', 'superseded').message).toMatch(
      /A newer copy of this file .* was recovered/,
    )
    expect(describeHeirResult(byRow('notes.txt', 'superseded'))).toMatch(/^older {4}notes\.txt: A newer copy/)

    expect(await filesUnder(outDir)).toEqual([
      'damaged/a.bin',
      'letters/will.txt',
      'notes.txt',
      'photos/cat.jpg',
    ])
    expect(await readFile(join(outDir, 'letters/will.txt'), 'utf8')).toBe('the final will')
    expect(await readFile(join(outDir, 'notes.txt'), 'utf8')).toBe('the newest notes')
    expect(await readFile(join(outDir, 'photos/cat.jpg'))).toEqual(Buffer.alloc(60_000, 7))
    expect(await readFile(join(outDir, 'damaged/a.bin'))).toEqual(Buffer.alloc(20_000, 1))

    // A second run: what was recovered is kept, the older copies are superseded again.
    const again = await recoverFromService({
      serviceUrl: t.url,
      accessToken: token,
      vaultId,
      vaultKey,
      outDir,
    })
    expect(again.results.map((r) => r.status)).toEqual([
      'kept',
      'kept',
      'kept',
      'kept',
      'failed',
      'failed',
      'superseded',
      'superseded',
    ])
    expect(await filesUnder(outDir)).toEqual([
      'damaged/a.bin',
      'letters/will.txt',
      'notes.txt',
      'photos/cat.jpg',
    ])
    // The damaged bundle is downloaded again next time (its copy may be repaired): nothing is left over.
    await expect(readdir(join(outDir, DOWNLOADS_FOLDER))).rejects.toMatchObject({ code: 'ENOENT' })
  })
})
