// The other ways a release goes, and the edges an heir can meet, on a real service with e-mail on
// loopback: the owner cancels in time (heirs never hear a thing); two guardians claim; the owner
// starts a release by hand. A vault set up through the app's own handlers (kits and all) shows that
// removing a guardian re-splits the key (old and new kits never combine, the app asks for new kits
// to be handed out), and its heir meets one share only, an old kit, a wrong and a revoked access
// code, and a file altered on the service.
import { execFile } from 'node:child_process'
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { promisify } from 'node:util'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { dispatch } from '../../src/main/core/ipc/handler-table'
import { createVaultApp, type VaultApp } from '../../src/main/core/vault-app'
import type { VaultSession } from '../../src/main/core/vault-session'
import { recoverVaultKey } from '../../src/recovery'
import { DOWNLOADS_FOLDER, recoverFromService } from '../../src/recovery/heir-recovery'
import type { Asset } from '../../src/shared/api'
import { invokeChannels } from '../../src/shared/ipc/contract'
import type { IpcResponse } from '../../src/shared/ipc/contract-kit'
import type { GuardianChange, GuardianKit, UploadItemView, VaultView } from '../../src/shared/ipc/vault-types'
import { collectBytes, combineShares, decodeShareWords, encryptStream } from '../../src/vault-format'
import {
  blobPathOf,
  DAY_MS,
  followGuardianLink,
  guardianLink,
  heirToken,
  type ReleaseWorld,
  sha256File,
  startReleaseWorld,
  writeSeededFile,
} from './release-fixture'

const run = promisify(execFile)
/** The recovery tool from its source (what `npm run recover` bundles), so no build step can race. */
const RECOVER_CLI = ['--import', 'tsx', 'src/recovery/cli.ts']
let world: ReleaseWorld
let owner: VaultSession

/** The asset whose upload metadata says it is a bundle (its name on the service is neutral). */
const isBundle = (a: Asset) => (a as Asset & { metadata?: { bundle?: boolean } }).metadata?.bundle === true

beforeAll(async () => {
  world = await startReleaseWorld('branches-owner@example.com')
  owner = await world.ownerCore()
}, 60_000)

afterAll(async () => {
  await world?.close()
})

// A fresh owner app per test: the client paces itself under the per-minute rate limits, and each
// test makes a burst of release calls.
beforeEach(async () => {
  owner = await world.ownerCore()
})

async function vaultWithPeople(
  trigger: 'dead_man_switch' | 'guardian_claim' | 'manual',
  tag: string,
): Promise<{ vaultId: string; guardianEmails: string[]; heirEmails: string[] }> {
  const vault = await owner.vaults.create({ preset: 'standard' })
  const guardianEmails = [1, 2, 3].map((n) => `g${n}-${tag}@example.com`)
  const heirEmails = [1, 2].map((n) => `h${n}-${tag}@example.com`)
  for (const email of guardianEmails)
    await owner.vaults.addGuardian(vault.id, { name: `Guardian ${email}`, email })
  for (const email of guardianEmails) {
    expect((await followGuardianLink(guardianLink(await world.mail.waitFor(email), 'accept'))).status).toBe(
      200,
    )
  }
  for (const email of heirEmails) await owner.vaults.addHeir(vault.id, { name: `Heir ${email}`, email })
  await owner.vaults.configureRelease(vault.id, { trigger, config: { checkInFrequency: 'weekly' } })
  return { vaultId: vault.id, guardianEmails, heirEmails }
}

describe('branch A: the owner cancels within the 30 days', () => {
  it('releasing -> cancelled -> active; checking in keeps it so; the heirs never receive anything', async () => {
    const { vaultId, heirEmails } = await vaultWithPeople('dead_man_switch', 'cancel')
    world.advance(7 * DAY_MS + 60_000)
    await world.service.tick()
    expect((await owner.vaults.get(vaultId)).state).toBe('releasing')
    for (let day = 1; day <= 12; day++) {
      world.advance(DAY_MS)
      await world.service.tick()
    }
    const cancelled = await owner.vaults.cancelRelease(vaultId)
    expect(cancelled).toMatchObject({ cancelled: true, vaultState: 'active' })
    expect((await owner.vaults.get(vaultId)).state).toBe('active')
    await world.mail.waitFor(world.ownerEmail, (m) => m.subject.includes('cancelled'))
    // Well past the day the release would have completed, checking in every 6 days.
    for (let day = 1; day <= 40; day++) {
      world.advance(DAY_MS)
      if (day % 6 === 0) await owner.vaults.checkIn(vaultId, 'still here')
      await world.service.tick()
    }
    expect((await owner.vaults.get(vaultId)).state).toBe('active')
    await new Promise((resolve) => setTimeout(resolve, 200)) // any mail in flight arrives
    for (const email of heirEmails) expect(world.mail.to(email)).toEqual([])
    const alerts = world.mail
      .to(world.ownerEmail)
      .filter((m) => m.text.includes(vaultId) && /releas/i.test(m.subject) && !/cancelled/.test(m.subject))
    expect(alerts.map((m) => /day (\d+)/.exec(m.subject)?.[1] ?? '0')).toEqual(['0', '3', '7'])
  }, 30_000)
})

describe('other triggers', () => {
  it('two accepted guardians claim through the links in their e-mails -> releasing', async () => {
    const { vaultId, guardianEmails } = await vaultWithPeople('guardian_claim', 'claim')
    const claim = async (email: string) => followGuardianLink(guardianLink(world.mail.to(email)[0]!, 'claim'))
    expect((await claim(guardianEmails[0]!)).status).toBe(200)
    expect((await owner.vaults.get(vaultId)).state).toBe('active')
    expect((await claim(guardianEmails[2]!)).status).toBe(200)
    expect((await owner.vaults.get(vaultId)).state).toBe('releasing')
    await world.mail.waitFor(
      world.ownerEmail,
      (m) => m.text.includes(vaultId) && m.subject.startsWith('A release of your vault has started'),
    )
  })

  it('manual: the owner starts the release from the app', async () => {
    const { vaultId } = await vaultWithPeople('manual', 'manual')
    expect((await owner.vaults.startRelease(vaultId)).state).toBe('releasing')
    await world.mail.waitFor(
      world.ownerEmail,
      (m) => m.text.includes(vaultId) && m.subject.startsWith('A release of your vault has started'),
    )
  })
})

describe('guardian removal re-splits; the heir meets the edges', () => {
  let backend: VaultApp
  let vaultId: string
  let oldKits: Map<string, string>
  let newKits: Map<string, string>
  const originals = new Map<string, string>()

  async function ok<T>(key: keyof typeof invokeChannels, args?: unknown): Promise<T> {
    const response = (await dispatch(backend.handlers, invokeChannels[key].name, args)) as IpcResponse<T>
    if (!response.ok) throw new Error(`${key}: ${response.error.code} ${response.error.message}`)
    return response.value
  }
  const kitWords = (kit: GuardianKit) =>
    [...kit.html.matchAll(/<span class="w">([^<]+)<\/span>/g)].map((m) => m[1]).join(' ')

  beforeAll(async () => {
    backend = createVaultApp({
      userDataDir: await world.tempDir('vault-release-app-'),
      mode: 'browser',
      version: '0.0.0-test',
      useKeychain: false,
    })
    await ok('connectService', { serviceUrl: world.service.url, apiKey: world.ownerKey })
  })
  afterAll(async () => {
    await backend?.close()
  })

  it('the app makes kits; removing a guardian makes new ones and asks for them to be handed out', async () => {
    vaultId = (await ok<VaultView>('createVault', { preset: 'standard' })).id
    const guardianIds: string[] = []
    for (const name of ['Ada', 'Ben', 'Cleo']) {
      const change = await ok<GuardianChange>('addGuardian', {
        vaultId,
        person: { name, email: `${name.toLowerCase()}-kits@example.com` },
      })
      guardianIds.push(change.guardian!.id)
    }
    const readKits = async (ids: string[]) => {
      const kits = new Map<string, string>()
      for (const id of ids)
        kits.set(id, kitWords(await ok<GuardianKit>('getGuardianKit', { vaultId, guardianId: id })))
      return kits
    }
    oldKits = await readKits(guardianIds)
    expect(new Set([...oldKits.values()].map((w) => decodeShareWords(w).splitId)).size).toBe(1)

    const removed = await ok<GuardianChange>('removeGuardian', { vaultId, guardianId: guardianIds[2] })
    expect(removed.sharesRegenerated).toBe(true)
    expect(removed.kitProblem).toBeNull()
    expect(removed.kits.map((k) => k.guardianId)).toEqual(guardianIds.slice(0, 2))
    newKits = await readKits(guardianIds.slice(0, 2))
    const oldSplit = decodeShareWords(oldKits.get(guardianIds[0]!)!).splitId
    const newSplit = decodeShareWords(newKits.get(guardianIds[0]!)!).splitId
    expect(newSplit).not.toBe(oldSplit)
    expect(removed.kits[0]!.splitId).toBe(newSplit)
    // The window turns this answer into "give every guardian their new kit":
    // test/e2e/browser-mode/release-resplit.spec.ts.
    // Old and new never combine, whichever guardians they come from.
    await expect(
      combineShares([
        decodeShareWords(oldKits.get(guardianIds[2]!)!),
        decodeShareWords(newKits.get(guardianIds[1]!)!),
      ]),
    ).rejects.toThrow(/different sets/)

    // Files, an heir, a manual release, 30 days.
    const source = await world.tempDir('vault-release-kits-src-')
    await writeFile(join(source, 'letter.txt'), 'Dear Ina, the house keys are with the neighbour.\n')
    await writeSeededFile(join(source, 'scans', 'deed.pdf'), 123_457, 'deed')
    await writeSeededFile(join(source, 'scans', 'passport.png'), 40_000, 'passport')
    for (const name of ['letter.txt', 'scans/deed.pdf', 'scans/passport.png']) {
      originals.set(name, await sha256File(join(source, name)))
    }
    // No keychain here: the owner kit is saved and confirmed before the first upload (shown once the
    // owner typed the vault's name, as the window asks).
    const gate = await ok<{ typeThis: string }>('getOwnerKitGate', { vaultId })
    await ok('openOwnerKitGate', { vaultId, typed: gate.typeThis })
    const ownerWords = kitWords(await ok<GuardianKit>('getOwnerKit', { vaultId })).split(' ')
    const check = await ok<{ positions: number[] }>('getOwnerKitCheck', { vaultId })
    await ok('confirmOwnerKit', {
      vaultId,
      answers: check.positions.map((position) => ({ position, word: ownerWords[position - 1] })),
    })
    await ok('queueUpload', { vaultId, paths: [join(source, 'letter.txt'), join(source, 'scans')] })
    await expect
      .poll(async () => (await ok<UploadItemView[]>('listUploads')).map((i) => i.state).join(), {
        timeout: 15_000,
      })
      .toBe('done,done,done')
    // A file whose recorded folder tries to climb out of wherever the heir saves the files.
    const keyNow = (await recoverVaultKey({ shareWords: [...newKits.values()] })).vaultKey
    const sealed = await collectBytes(
      encryptStream(Readable.from([Buffer.from('no escape\n')]), {
        vaultKey: keyNow,
        vaultId,
        identity: { path: 'escape.txt', size: 10 },
      }),
    )
    const form = new FormData()
    form.set('filename', 'escape.txt')
    form.set('metadata', JSON.stringify({ relativePath: '../../../escape.txt' }))
    form.set('file', new Blob([sealed]), 'escape.txt.c2sp')
    const posted = await fetch(`${world.service.url}/api/vault/${vaultId}/asset`, {
      method: 'POST',
      headers: { 'x-api-key': world.ownerKey },
      body: form,
    })
    expect(posted.status).toBe(201)
    await ok('addHeir', { vaultId, person: { name: 'Ina', email: 'ina@example.com' } })
    await owner.vaults.configureRelease(vaultId, {
      trigger: 'manual',
      config: { checkInFrequency: 'weekly' },
    })
    await owner.vaults.startRelease(vaultId)
    world.advance(30 * DAY_MS + 60_000)
    expect((await world.service.tick()).released).toContainEqual({ vaultId, heirsNotified: 1 })
  }, 60_000)

  it('one share only: "2 of 3 needed", and nothing is written', async () => {
    const outDir = join(await world.tempDir('vault-heir-one-'), 'out')
    const token = heirToken(await world.mail.waitFor('ina@example.com'))
    const failed = await run(process.execPath, [
      ...RECOVER_CLI,
      '--service',
      world.service.url,
      '--token',
      token,
      '--share-words',
      [...newKits.values()][0]!,
      '--out',
      outDir,
    ]).catch((e: { code: number; stderr: string }) => e)
    expect(failed).toMatchObject({ code: 2 })
    expect((failed as { stderr: string }).stderr).toContain('2 of 3 needed; you entered 1')
    await expect(readdir(outDir)).rejects.toThrow(/ENOENT/)
  })

  it('a kit from before the guardian was removed, mixed with a new one: refused, with why', async () => {
    const [oldThird] = [...oldKits.values()].slice(2)
    await expect(recoverVaultKey({ shareWords: [oldThird!, [...newKits.values()][0]!] })).rejects.toThrow(
      /different sets for the same vault.*the owner re-made the shares/s,
    )
  })

  it('a file altered on the service: refused, nothing written for it, the others recovered', async () => {
    const token = heirToken(world.mail.to('ina@example.com')[0]!)
    const key = await recoverVaultKey({ shareWords: [...newKits.values()] })
    // The three small files went up as one bundle, in the order they were queued: the bundle's last
    // bytes belong to scans/passport.png.
    // Names are hidden from the service: the bundle is the asset its metadata calls one.
    const bundle = (await owner.vaults.listAssets(vaultId)).data.find(isBundle)!
    const blob = blobPathOf(world.serviceDir, bundle.storageTxId)
    const original = await readFile(blob)
    const bytes = Buffer.from(original)
    bytes[bytes.length - 20]! ^= 0x01
    await writeFile(blob, bytes)

    const outDir = await world.tempDir('vault-heir-tamper-')
    const report = await recoverFromService({
      serviceUrl: world.service.url,
      accessToken: token,
      vaultId,
      vaultKey: key.vaultKey,
      outDir,
    })
    await writeFile(blob, original)
    expect(report.stopped).toBeUndefined()
    const byName = new Map(report.results.map((r) => [r.name, r]))
    expect(byName.get('scans/passport.png')).toMatchObject({ status: 'failed', reason: 'damaged' })
    expect(byName.get('scans/passport.png')!.message).toMatch(
      /bundle holding this file.*changed or damaged.*nothing was written for it/s,
    )
    expect(byName.get('letter.txt')?.status).toBe('recovered')
    expect(byName.get('scans/deed.pdf')?.status).toBe('recovered')
    // No plaintext of the altered file, not even a temp file; the downloads folder is gone.
    // The file with the climbing path was stored past the app (no manifest lists it): reported as
    // newer than the vault's list, not written, and its path would stay inside the chosen folder.
    expect(byName.get('escape.txt')).toMatchObject({
      status: 'newer',
      output: join(outDir, 'escape.txt'),
    })
    expect((await readdir(outDir, { recursive: true })).sort()).toEqual([
      'letter.txt',
      'scans',
      'scans/deed.pdf',
    ])
    for (const name of ['letter.txt', 'scans/deed.pdf']) {
      expect(await sha256File(join(outDir, name))).toBe(originals.get(name))
    }
  })

  it('a re-run leaves a different file in the way untouched and restarts a bad partial download', async () => {
    const token = heirToken(world.mail.to('ina@example.com')[0]!)
    const key = await recoverVaultKey({ shareWords: [...newKits.values()] })
    const assets = (await owner.vaults.listAssets(vaultId)).data
    const bundle = assets.find(isBundle)!
    const outDir = await world.tempDir('vault-heir-rerun-')
    await mkdir(join(outDir, 'scans'), { recursive: true })
    await writeFile(join(outDir, 'scans', 'deed.pdf'), 'my own notes, not the deed')
    await mkdir(join(outDir, DOWNLOADS_FOLDER), { recursive: true })
    await writeFile(join(outDir, DOWNLOADS_FOLDER, `${bundle.id}.part`), Buffer.alloc(bundle.sizeBytes + 10))

    const report = await recoverFromService({
      serviceUrl: world.service.url,
      accessToken: token,
      vaultId,
      vaultKey: key.vaultKey,
      outDir,
    })
    const byName = new Map(report.results.map((r) => [r.name, r]))
    expect(byName.get('scans/deed.pdf')).toMatchObject({ status: 'failed', reason: 'exists' })
    // An output folder that cannot be made: the run stops before downloading anything, and says why.
    const blocked = await recoverFromService({
      serviceUrl: world.service.url,
      accessToken: token,
      vaultId,
      vaultKey: key.vaultKey,
      outDir: join(outDir, 'scans', 'deed.pdf', 'inside-a-file'),
    })
    expect(blocked.stopped).toMatchObject({ code: 'OUTPUT_UNWRITABLE' })
    expect(blocked.stopped?.message).toMatch(/cannot be used .*Choose a folder you can write to/)
    expect(await readFile(join(outDir, 'scans', 'deed.pdf'), 'utf8')).toBe('my own notes, not the deed')
    expect(byName.get('scans/passport.png')?.status).toBe('recovered')
    expect(await sha256File(join(outDir, 'scans', 'passport.png'))).toBe(originals.get('scans/passport.png'))
  })

  it('a wrong or revoked access code: 401 and a clear message', async () => {
    const token = heirToken(world.mail.to('ina@example.com')[0]!)
    const key = await recoverVaultKey({ shareWords: [...newKits.values()] })
    const outDir = await world.tempDir('vault-heir-token-')
    const attempt = (accessToken: string) =>
      recoverFromService({
        serviceUrl: world.service.url,
        accessToken,
        vaultId,
        vaultKey: key.vaultKey,
        outDir,
      })
    const wrong = await attempt(`${token.slice(0, -4)}AAAA`)
    expect(wrong.stopped?.code).toBe('ACCESS_REFUSED')
    expect(wrong.stopped?.message).toMatch(/did not accept this access code/)
    // Kits of another vault with this token: the service answers 403, and the message says why.
    const otherVault = await recoverFromService({
      serviceUrl: world.service.url,
      accessToken: token,
      vaultId: 'vlt_someone-else',
      vaultKey: key.vaultKey,
      outDir,
    })
    expect(otherVault.stopped?.message).toMatch(/for a different vault than vault vlt_someone-else/)
    const raw = await fetch(`${world.service.url}/api/vault/${vaultId}`, {
      headers: { 'x-api-key': `${token}x` },
    })
    expect(raw.status).toBe(401)

    const cli = await run(process.execPath, [
      ...RECOVER_CLI,
      '--service',
      world.service.url,
      '--token',
      'hk_wrong',
      ...[...newKits.values()].flatMap((w) => ['--share-words', w]),
      '--out',
      outDir,
    ]).catch((e: { code: number; stderr: string }) => e)
    expect(cli).toMatchObject({ code: 1 })
    expect((cli as { stderr: string }).stderr).toMatch(/did not accept this access code/)

    await world.service.admin.revokeKey({ key: token })
    const revoked = await attempt(token)
    expect(revoked.stopped?.code).toBe('ACCESS_REFUSED')
    expect(await readdir(outDir)).toEqual([])
  })
})
