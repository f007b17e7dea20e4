// "Safe by default" through the handlers, against real Vault Services on port 0 and a memory secret
// store (no keychain): the local service's key is issued again after a restart (no lock-out); vault
// keys come back only from the owner kit, so uploads wait for a confirmed kit; the owner-kit check;
// the check-in reserve; names on the service or on the device; delete; manual release on a service
// without the extension; the mail test and local credits; and a practice release end to end.
import { randomUUID } from 'node:crypto'
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dispatch } from '../../src/main/core/ipc/handler-table'
import { createVaultApp, type VaultApp } from '../../src/main/core/vault-app'
import { makePracticeMaterial } from '../../src/main/core/vaults/practice-material'
import { LocalServiceHost } from '../../src/main/local-service-host'
import { type RunningService, startService } from '../../src/service'
import { type Asset, EXTENSION_LIMITS, type Guardian, type Heir, type Rehearsal } from '../../src/shared/api'
import { invokeChannels } from '../../src/shared/ipc/contract'
import type { IpcResponse } from '../../src/shared/ipc/contract-kit'
import type {
  ConnectionStatus,
  GuardianChange,
  GuardianKit,
  GuardianKitInfo,
  OwnerKit,
  OwnerKitCheck,
  RecoveryReport,
  StartLocallyResult,
  UploadItemView,
  VaultsSnapshot,
  VaultView,
} from '../../src/shared/ipc/vault-types'
import {
  encodeOwnerKitWords,
  generateVaultKey,
  rehearsalProof,
  rehearsalProofHash,
} from '../../src/vault-format'

type Channel = keyof typeof invokeChannels

function client(backend: () => VaultApp) {
  const call = async <T = unknown>(key: Channel, args?: unknown): Promise<IpcResponse<T>> =>
    (await dispatch(backend().handlers, invokeChannels[key].name, args)) as IpcResponse<T>
  const ok = async <T = unknown>(key: Channel, args?: unknown): Promise<T> => {
    const response = await call<T>(key, args)
    if (!response.ok) throw new Error(`${key} failed: ${response.error.code} ${response.error.message}`)
    return response.value
  }
  /** The owner confirms by typing the vault's name, as the window asks before the owner kit shows. */
  const unlockOwnerKit = async (vaultId: string) => {
    const gate = await ok<{ typeThis: string }>('getOwnerKitGate', { vaultId })
    await ok('openOwnerKitGate', { vaultId, typed: gate.typeThis })
  }
  const refused = async (key: Channel, args: unknown, code: string): Promise<string> => {
    const response = await call(key, args)
    expect(response, `${key} should be refused with ${code}`).toMatchObject({ ok: false, error: { code } })
    return response.ok ? '' : response.error.message
  }
  /** Waits until the active service has been described (GET /service, or its absence). */
  const serviceKnown = async () => {
    await expect
      .poll(async () => (await ok<ConnectionStatus>('getConnectionStatus')).service, { timeout: 10_000 })
      .not.toBeNull()
    return (await ok<ConnectionStatus>('getConnectionStatus')).service!
  }
  const uploadAndWait = async (vaultId: string, path: string, extra: Record<string, unknown> = {}) => {
    const queued = await ok<{ batchId: string }>('queueUpload', { vaultId, paths: [path], ...extra })
    await expect
      .poll(
        async () =>
          (await ok<UploadItemView[]>('listUploads'))
            .filter((i) => i.batchId === queued.batchId)
            .map((i) => i.state),
        { timeout: 30_000 },
      )
      .toEqual(['done'])
  }
  return { call, ok, refused, serviceKnown, uploadAndWait, unlockOwnerKit }
}

/** The words printed on a kit page (guardian or owner), in order. */
const kitWords = (html: string) =>
  [...html.matchAll(/<span class="w">([^<]+)<\/span>/g)].map((m) => m[1]!).join(' ')

const dirs: string[] = []
async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix))
  dirs.push(dir)
  return dir
}
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

// ---------------------------------------------------------------------------------------------
// Start locally, then a restart with a memory secret store.
// ---------------------------------------------------------------------------------------------

describe('start locally and restart without a keychain', () => {
  let userDataDir: string
  let backend: VaultApp
  const { call, ok, refused, serviceKnown, uploadAndWait, unlockOwnerKit } = client(() => backend)
  const open = () =>
    createVaultApp({
      userDataDir,
      mode: 'browser',
      version: '0',
      useKeychain: false,
      localService: (dir) => LocalServiceHost.open(dir),
    })

  let vaultA: string
  let vaultB: string
  let wordsA: string
  let wordsB: string
  let fingerprintB: string
  let keyLast4: string
  let file: string

  beforeAll(async () => {
    userDataDir = await tempDir('vault-safe-local-')
    file = join(userDataDir, '..', `${randomUUID()}-letter.txt`)
    dirs.push(file)
    await writeFile(file, 'The will is in the blue folder.\n')
    backend = open()
  })
  afterAll(async () => {
    await backend?.close()
  })

  it('starts locally: a trial service, keys kept only in memory', async () => {
    const started = await ok<StartLocallyResult>('startLocally', { email: 'me@example.com' })
    vaultA = started.vault.id
    keyLast4 = started.connection.keyLast4
    expect(started.connection.local).toBe(true)
    expect(started.vault).toMatchObject({
      keyOnDevice: true,
      keyStorage: { kind: 'memory', durable: false },
      ownerKitConfirmedAt: null,
    })
    const service = await serviceKnown()
    expect(service).toMatchObject({ trial: true, reachableByOthers: false, credits: { addHere: true } })
    const status = await ok<ConnectionStatus>('getConnectionStatus')
    expect(status.keyStorage).toMatchObject({ kind: 'memory', durable: false })
  })

  it('the trial service sends no mail: NO_MAIL', async () => {
    const message = await refused('sendTestMail', undefined, 'NO_MAIL')
    expect(message).toMatch(/sends no e-mail/)
  })

  it('adds credits to the local account', async () => {
    const before = (await ok<VaultView>('refreshVault', { vaultId: vaultA })).creditsBalance
    const added = await ok<{ creditsBalance: number }>('addLocalCredits', { credits: 250 })
    expect(added.creditsBalance).toBe(before + 250)
    expect((await ok<VaultView>('refreshVault', { vaultId: vaultA })).creditsBalance).toBe(before + 250)
  })

  it('refuses uploads with OWNER_KIT_REQUIRED until the owner kit is confirmed', async () => {
    const message = await refused('estimateUpload', { vaultId: vaultA, paths: [file] }, 'OWNER_KIT_REQUIRED')
    expect(message).toMatch(/no keychain/)
    await refused('queueUpload', { vaultId: vaultA, paths: [file] }, 'OWNER_KIT_REQUIRED')
    expect(await ok<UploadItemView[]>('listUploads')).toEqual([])
  })

  it('the owner-kit check: other positions and wrong words are refused, the right words confirm', async () => {
    // The words are shown only once the owner confirmed (issue 30, point 20): main refuses before.
    await refused('getOwnerKit', { vaultId: vaultA }, 'OWNER_KIT_LOCKED')
    await refused('openOwnerKitGate', { vaultId: vaultA, typed: 'not its name' }, 'OWNER_KIT_NOT_CONFIRMED')
    await unlockOwnerKit(vaultA)
    const kit = await ok<OwnerKit>('getOwnerKit', { vaultId: vaultA })
    wordsA = kitWords(kit.html)
    const words = wordsA.split(' ')
    const check = await ok<OwnerKitCheck>('getOwnerKitCheck', { vaultId: vaultA })
    expect(check.wordCount).toBe(words.length)
    expect(check.positions).toHaveLength(3)
    expect([...check.positions].sort((a, b) => a - b)).toEqual(check.positions)
    expect(new Set(check.positions).size).toBe(3)
    for (const p of check.positions) expect(p >= 1 && p <= words.length).toBe(true)
    const right = check.positions.map((position) => ({ position, word: words[position - 1]! }))

    // Answers for positions that were not asked.
    const others = [1, 2, 3, 4].filter((p) => !check.positions.includes(p)).slice(0, 3)
    await refused(
      'confirmOwnerKit',
      { vaultId: vaultA, answers: others.map((position) => ({ position, word: words[position - 1]! })) },
      'CHECK_EXPIRED',
    )
    // One wrong word: refused, naming its position only.
    const wrong = right.map((a, i) => (i === 1 ? { ...a, word: 'zzzzzz' } : a))
    const message = await refused(
      'confirmOwnerKit',
      { vaultId: vaultA, answers: wrong },
      'OWNER_KIT_MISMATCH',
    )
    expect(message).toContain(`Word #${check.positions[1]} does not match`)
    // Whole numbers: position 1 is not "named" by the #18 of the wrong word.
    expect(message.match(/#\d+/g)).toEqual([`#${check.positions[1]}`])
    expect((await ok<VaultView>('refreshVault', { vaultId: vaultA })).ownerKitConfirmedAt).toBeNull()

    // Case and spaces do not matter.
    const view = await ok<VaultView>('confirmOwnerKit', {
      vaultId: vaultA,
      answers: right.map((a) => ({ ...a, word: `  ${a.word.toUpperCase()} ` })),
    })
    expect(view.ownerKitConfirmedAt).toEqual(expect.any(String))
    expect(view.readiness.items.find((i) => i.id === 'owner-kit')?.met).toBe(true)
    // The check is used up.
    await refused('confirmOwnerKit', { vaultId: vaultA, answers: right }, 'CHECK_EXPIRED')
  })

  it('with the kit confirmed, the upload goes through', async () => {
    expect(await ok('estimateUpload', { vaultId: vaultA, paths: [file] })).toMatchObject({ files: 1 })
    await uploadAndWait(vaultA, file)
    expect((await ok<VaultView>('refreshVault', { vaultId: vaultA })).assetCount).toBe(1)
  })

  it('a second vault, named at creation on the service, confirmed too; its key is not "lost"', async () => {
    const created = await ok<VaultView>('createVault', { preset: 'standard', name: 'Second' })
    vaultB = created.id
    expect(created).toMatchObject({ name: 'Second', label: 'Second', keyOnDevice: true })
    await unlockOwnerKit(vaultB)
    const kit = await ok<OwnerKit>('getOwnerKit', { vaultId: vaultB })
    wordsB = kitWords(kit.html)
    fingerprintB = kit.fingerprint
    const check = await ok<OwnerKitCheck>('getOwnerKitCheck', { vaultId: vaultB })
    const words = wordsB.split(' ')
    await ok('confirmOwnerKit', {
      vaultId: vaultB,
      answers: check.positions.map((position) => ({ position, word: words[position - 1]! })),
    })
    await refused('replaceLostVaultKey', { vaultId: vaultB }, 'KEY_PRESENT')
  })

  it('after a restart: the local connection gets a new key by itself; vault keys are gone', async () => {
    await backend.close()
    backend = open()
    const status = await ok<ConnectionStatus>('getConnectionStatus')
    expect(status.active).toMatchObject({ local: true })
    expect(status.localService.running).toBe(true)
    // A new key was issued through the local admin path (the old one was only in memory).
    expect(status.active!.keyLast4).not.toBe(keyLast4)

    const snapshot = await ok<VaultsSnapshot>('refreshVaults')
    expect(snapshot.error).toBeNull()
    expect(snapshot.fetchedAt).toEqual(expect.any(String))
    expect(snapshot.vaults.map((v) => v.id).sort()).toEqual([vaultA, vaultB].sort())
    const gotten = await ok<VaultsSnapshot>('getVaults')
    expect(gotten.vaults).toHaveLength(2)

    for (const vaultId of [vaultA, vaultB]) {
      const view = await ok<VaultView>('refreshVault', { vaultId })
      expect(view.keyOnDevice).toBe(false)
      // The confirmation was for a key this device no longer holds.
      expect(view.ownerKitConfirmedAt).toBeNull()
    }
    await refused('estimateUpload', { vaultId: vaultA, paths: [file] }, 'OWNER_KIT_REQUIRED')
  })

  // BUG (src/main/core/ipc/connection-handlers.ts, sendTestMail): the trial check reads
  // s.service?.trial, which is null until the service summary has been read (after a restart it is
  // read only by start() or a vault's facts, asynchronously). Until then the request goes to the
  // local service and comes back as its 409 CONFLICT instead of NO_MAIL. The check should use
  // s.host.isLocal(active.serviceUrl) as addLocalCredits does. Left failing on purpose.
  it('right after a restart, the mail test on the trial service is NO_MAIL too', async () => {
    await backend.close()
    backend = open()
    await refused('sendTestMail', undefined, 'NO_MAIL')
  })

  it('a lost key is not replaced for a vault that holds files', async () => {
    const message = await refused('replaceLostVaultKey', { vaultId: vaultA }, 'VAULT_NOT_EMPTY')
    expect(message).toMatch(/holds 1 file /)
    expect((await ok<VaultView>('refreshVault', { vaultId: vaultA })).keyOnDevice).toBe(false)
  })

  it('importing the owner kit words restores the key and counts as confirmed', async () => {
    const view = await ok<VaultView>('importOwnerKit', { vaultId: vaultA, words: wordsA })
    expect(view.keyOnDevice).toBe(true)
    expect(view.ownerKitConfirmedAt).toEqual(expect.any(String))
    const fresh = join(userDataDir, 'after-restart.txt')
    await writeFile(fresh, 'written after the restart')
    expect(await ok('estimateUpload', { vaultId: vaultA, paths: [fresh] })).toMatchObject({ files: 1 })
  })

  it('an empty vault whose key is lost gets a new key; the old confirmation does not carry over', async () => {
    const view = await ok<VaultView>('replaceLostVaultKey', { vaultId: vaultB })
    expect(view.keyOnDevice).toBe(true)
    await unlockOwnerKit(vaultB)
    const kit = await ok<OwnerKit>('getOwnerKit', { vaultId: vaultB })
    expect(kit.fingerprint).not.toBe(fingerprintB)
    expect(kitWords(kit.html)).not.toBe(wordsB)
    // Confirmation is bound to the key's fingerprint: the old kit's confirmation is not this key's.
    expect(view.ownerKitConfirmedAt).toBeNull()
    await refused('estimateUpload', { vaultId: vaultB, paths: [file] }, 'OWNER_KIT_REQUIRED')
  })

  it('deleting a vault removes its key and kits on this device', async () => {
    const change = await ok<GuardianChange>('addGuardian', {
      vaultId: vaultB,
      person: { name: 'Ann', email: 'ann@example.com' },
    })
    expect(change.kits).toHaveLength(1)
    expect(await ok<GuardianKitInfo[]>('listGuardianKits', { vaultId: vaultB })).toHaveLength(1)
    expect(await ok('deleteVault', { vaultId: vaultB })).toEqual({ deleted: vaultB })
    expect(await ok<GuardianKitInfo[]>('listGuardianKits', { vaultId: vaultB })).toEqual([])
    const kitFiles = await readdir(join(userDataDir, 'guardian-kits')).catch(() => [] as string[])
    expect(kitFiles.filter((f) => f.includes(encodeURIComponent(vaultB)))).toEqual([])
    expect((await call('getOwnerKit', { vaultId: vaultB })).ok).toBe(false)
    const snapshot = await ok<VaultsSnapshot>('refreshVaults')
    expect(snapshot.vaults.map((v) => v.id)).toEqual([vaultA])
  })
})

// ---------------------------------------------------------------------------------------------
// A remote service with every extension.
// ---------------------------------------------------------------------------------------------

describe('a remote service with the extensions', () => {
  let service: RunningService
  let backend: VaultApp
  let appDir: string
  const { ok, refused, serviceKnown, uploadAndWait } = client(() => backend)
  const api = async (method: string, path: string, key: string, json?: unknown) => {
    const response = await fetch(`${service.url}/api${path}`, {
      method,
      headers: { 'x-api-key': key, ...(json ? { 'content-type': 'application/json' } : {}) },
      ...(json ? { body: JSON.stringify(json) } : {}),
    })
    return { status: response.status, body: (await response.json()) as { data: { name: string | null } } }
  }

  beforeAll(async () => {
    service = await startService({ dataDir: await tempDir('vault-safe-svc-'), port: 0 })
    appDir = await tempDir('vault-safe-app-')
    backend = createVaultApp({ userDataDir: appDir, mode: 'browser', version: '0', useKeychain: false })
  })
  afterAll(async () => {
    await backend?.close()
    await service?.close()
  })

  it('an account with no vault: the list is read (fetchedAt set), not "loading" forever', async () => {
    const account = await service.admin.createAccount({ email: 'empty@example.com' })
    expect(await ok('connectService', { serviceUrl: service.url, apiKey: account.apiKey })).toMatchObject({
      active: true,
    })
    const snapshot = await ok<VaultsSnapshot>('getVaults')
    expect(snapshot.vaults).toEqual([])
    expect(snapshot.error).toBeNull()
    expect(snapshot.fetchedAt).toEqual(expect.any(String))
    expect(Number.isNaN(Date.parse(snapshot.fetchedAt!))).toBe(false)
  })

  let owner: { accountId: string; apiKey: string }
  let vaultId: string
  let vaultKey: Uint8Array

  it('a remote service: not a trial; credits are bought there, not added here (NOT_LOCAL)', async () => {
    owner = await service.admin.createAccount({ email: 'owner@example.com' })
    vaultId = (await service.admin.createVault({ account: owner.accountId, preset: 'standard' })).vaultId
    await ok('connectService', { serviceUrl: service.url, apiKey: owner.apiKey })
    const summary = await serviceKnown()
    expect(summary).toMatchObject({
      trial: false,
      // 127.0.0.1: the service's own public URL only works on this computer.
      reachableByOthers: false,
      mailConfigured: false,
      // The service names no credits page (no --credits-url): the owner is sent to its operator, never
      // to the service's own root (an API that answers a raw JSON 404 to a browser).
      credits: { addHere: false, buyAt: null },
      storage: { kind: 'folder', permanent: false },
    })
    expect(summary.extensions).toEqual(expect.arrayContaining(['vault-name', 'rehearsal', 'release-start']))
    const message = await refused('addLocalCredits', { credits: 10 }, 'NOT_LOCAL')
    expect(message).toContain('ask the operator of this service')
    expect(message).not.toContain(new URL(service.url).origin)
  })

  it('renames on the service, and clears the name with an empty one', async () => {
    const renamed = await ok<VaultView>('renameVault', { vaultId, name: '  Family papers ' })
    expect(renamed).toMatchObject({ name: 'Family papers', label: 'Family papers' })
    expect((await api('GET', `/vault/${vaultId}`, owner.apiKey)).body.data.name).toBe('Family papers')
    const cleared = await ok<VaultView>('renameVault', { vaultId, name: '' })
    expect(cleared.name).toBeNull()
    const renames = await ok<{ items: Array<{ detail: { note?: string } }> }>('listActivity', {
      vaultId,
      kinds: ['vault-renamed'],
      limit: 10,
      offset: 0,
    })
    expect(renames.items.map((e) => e.detail.note)).toEqual([cleared.label, 'Family papers'])
    expect(cleared.label).toMatch(/^Vault /)
    expect((await api('GET', `/vault/${vaultId}`, owner.apiKey)).body.data.name).toBeNull()
  })

  it('RESERVE_NEEDED when an upload would eat the check-in reserve; spendReserve lets it through', async () => {
    vaultKey = generateVaultKey()
    await ok('importOwnerKit', { vaultId, words: encodeOwnerKitWords({ vaultKey, vaultId }) })
    // Weekly: 53 check-ins of 2 credits = 106 kept, more than the 100 trial credits.
    await ok('configureRelease', { vaultId, trigger: 'dead_man_switch', checkInFrequency: 'weekly' })
    const file = join(appDir, 'reserve.txt')
    await writeFile(file, 'small')
    const estimate = await ok('estimateUpload', { vaultId, paths: [file] })
    expect(estimate).toMatchObject({ reserveCredits: 106, eatsReserve: true })
    const message = await refused('queueUpload', { vaultId, paths: [file] }, 'RESERVE_NEEDED')
    expect(message).toContain('106 kept for 12 months of check-ins')
    await uploadAndWait(vaultId, file, { spendReserve: true })
    // Back to a trigger without check-ins for what follows: no reserve.
    await ok('configureRelease', { vaultId, trigger: 'manual' })
    const file2 = join(appDir, 'no-reserve.txt')
    await writeFile(file2, 'also small')
    expect(await ok('estimateUpload', { vaultId, paths: [file2] })).toMatchObject({
      reserveCredits: 0,
      eatsReserve: false,
    })
  })

  let guardianIds: string[]
  let heir: Heir

  it('kits: handed over per guardian; readiness counts them', async () => {
    await ok('addGuardian', { vaultId, person: { name: 'Gina', email: 'gina@example.com' } })
    const change = await ok<GuardianChange>('addGuardian', {
      vaultId,
      person: { name: 'Gus', email: 'gus@example.com' },
    })
    guardianIds = change.kits.map((k) => k.guardianId)
    expect(guardianIds).toHaveLength(2)
    const after = await ok<GuardianKitInfo[]>('setKitHandedOver', {
      vaultId,
      guardianId: guardianIds[0],
      handedOver: true,
    })
    expect(after.map((k) => k.handedOver)).toEqual([true, false])
    let kitsItem = (await ok<VaultView>('refreshVault', { vaultId })).readiness.items.find(
      (i) => i.id === 'kits',
    )
    expect(kitsItem?.met).toBe(false)
    expect(kitsItem?.detail).toMatch(/^1 of 2 kits/)
    await ok('setKitHandedOver', { vaultId, guardianId: guardianIds[1], handedOver: true })
    kitsItem = (await ok<VaultView>('refreshVault', { vaultId })).readiness.items.find((i) => i.id === 'kits')
    expect(kitsItem?.met).toBe(true)
    // Taken back.
    const back = await ok<GuardianKitInfo[]>('setKitHandedOver', {
      vaultId,
      guardianId: guardianIds[0],
      handedOver: false,
    })
    expect(back.map((k) => k.handedOver)).toEqual([false, true])
    await refused('setKitHandedOver', { vaultId, guardianId: 'gdn_nobody', handedOver: true }, 'NO_KIT')
  })

  const kitsOf = async (ids: string[]) => {
    const out: string[] = []
    for (const guardianId of ids)
      out.push(kitWords((await ok<GuardianKit>('getGuardianKit', { vaultId, guardianId })).html))
    return out
  }
  const latestPracticeToken = async (email: string) => {
    const mails = (await service.admin.outbox({ vault: vaultId })).messages.filter(
      (m) => m.to === email && m.kind === 'rehearsal_heir',
    )
    const body = mails.at(-1)?.body ?? ''
    return /(hk_[A-Za-z0-9_-]{43})/.exec(body)?.[1] ?? ''
  }

  /** The practice kits the latest practice mailed to the guardians (one line of words each). */
  const latestPracticeKits = async () => {
    const mails = (await service.admin.outbox({ vault: vaultId })).messages.filter(
      (m) => m.kind === 'rehearsal_guardian',
    )
    return mails.slice(-guardianIds.length).map((m) =>
      m.body
        .split('\n')
        .find((line) => /^[a-z]+( [a-z]+){20,}$/.test(line.trim()))!
        .trim(),
    )
  }

  it("practice release: practice kits from the guardians' e-mails open the practice letter; real kits are refused unopened", async () => {
    heir = await ok<Heir>('addHeir', { vaultId, person: { name: 'Hana', email: 'hana@example.com' } })
    const before = await ok<{ assets: Asset[] }>('listAssets', { vaultId, limit: 50, offset: 0 })

    expect(await ok<Rehearsal | null>('getRehearsal', { vaultId })).toBeNull()
    const started = await ok<Rehearsal>('startRehearsal', {
      vaultId,
      heirId: heir.id,
      sample: { kind: 'letter' },
    })
    expect(started).toMatchObject({
      state: 'running',
      heir: { id: heir.id },
      sample: { filename: expect.stringMatching(/^Practice file - /), ownerFile: false },
      guardiansNotified: 2,
    })
    // The practice file is not a vault asset.
    expect((await ok<{ assets: Asset[] }>('listAssets', { vaultId, limit: 50, offset: 0 })).assets).toEqual(
      before.assets,
    )
    const token = await latestPracticeToken('hana@example.com')
    expect(token).toMatch(/^hk_/)
    const practiceKits = await latestPracticeKits()
    const realKits = await kitsOf(guardianIds)
    for (const real of realKits) expect(practiceKits).not.toContain(real)

    // What the practice code shows: one practice file, never the vault's files.
    const listing = await ok<{ practice?: boolean; files: { name: string; plaintextBytes: number }[] }>(
      'listHeirFiles',
      {
        serviceUrl: service.url,
        accessToken: token,
        vaultId,
      },
    )
    expect(listing).toMatchObject({ practice: true, files: [{ name: started.sample.filename }] })

    // Real kits handed over by mistake: refused before they are combined.
    const outputDir = join(appDir, 'practice-out')
    const message = await refused(
      'recoverFromService',
      { serviceUrl: service.url, accessToken: token, vaultId, shares: realKits, outputDir },
      'REAL_KITS_IN_PRACTICE',
    )
    expect(message).toMatch(/Give the real kits back/)
    // One practice kit and one real kit: refused too, named.
    await refused(
      'recoverFromService',
      {
        serviceUrl: service.url,
        accessToken: token,
        vaultId,
        shares: [practiceKits[0]!, realKits[1]!],
        outputDir,
      },
      'SHARE_INVALID',
    )

    const report = await ok<RecoveryReport>('recoverFromService', {
      serviceUrl: service.url,
      accessToken: token,
      vaultId,
      shares: practiceKits,
      outputDir,
    })
    expect(report.stopped).toBeUndefined()
    expect(report.results).toEqual([expect.objectContaining({ ok: true, input: started.sample.filename })])
    expect(await readFile(report.results[0]!.output!, 'utf8')).toMatch(/^Practice file for /)
    // The size shown before the download is the file's (the format-3 record is not counted in).
    expect((await stat(report.results[0]!.output!)).size).toBe(listing.files[0]!.plaintextBytes)
    expect(await readdir(outputDir)).toEqual([started.sample.filename])
    expect(report.rehearsal).toMatchObject({ passed: true })
    expect(report.rehearsal!.message).toMatch(/practice kits opened the practice file/)

    const after = await ok<Rehearsal>('getRehearsal', { vaultId })
    expect(after).toMatchObject({ state: 'passed', passedAt: expect.any(String), failedReports: 0 })
    // Started and passed are in the vault's history once each, however often the practice is read.
    await ok('getRehearsal', { vaultId })
    const practice = await ok<{ items: Array<{ kind: string; detail: { person?: string } }> }>(
      'listActivity',
      { vaultId, kinds: ['practice-started', 'practice-passed'], limit: 10, offset: 0 },
    )
    expect(practice.items.map((e) => [e.kind, e.detail.person])).toEqual([
      ['practice-passed', 'Hana'],
      ['practice-started', 'Hana'],
    ])
    const view = await ok<VaultView>('refreshVault', { vaultId })
    expect(view.readiness.items.find((i) => i.id === 'rehearsal')?.met).toBe(true)
  })

  it("one of the owner's files as the practice file: marked as readable by the service; too large is refused", async () => {
    const plain = Buffer.from('A photo of the garden, for practice.\n'.repeat(50))
    const started = await ok<Rehearsal>('startRehearsal', {
      vaultId,
      heirId: heir.id,
      sample: { kind: 'file', name: 'garden.txt', contentBase64: plain.toString('base64') },
    })
    expect(started.sample).toMatchObject({ filename: 'garden.txt', ownerFile: true })
    const report = await ok<RecoveryReport>('recoverFromService', {
      serviceUrl: service.url,
      accessToken: await latestPracticeToken('hana@example.com'),
      vaultId,
      shares: await latestPracticeKits(),
      outputDir: join(appDir, 'practice-own'),
    })
    expect(await readFile(report.results[0]!.output!)).toEqual(plain)
    expect(report.rehearsal).toMatchObject({ passed: true })
    const large = Buffer.alloc(EXTENSION_LIMITS.rehearsalOwnFileMaxBytes + 1).toString('base64')
    await refused(
      'startRehearsal',
      { vaultId, heirId: heir.id, sample: { kind: 'file', name: 'big', contentBase64: large } },
      'PRACTICE_FILE_TOO_LARGE',
    )
  })

  it('a practice whose expected proof is of another key: the practice file opens but the practice does not pass', async () => {
    // The owner's side set the question with a different key (as kits of another practice would answer it).
    const guardians = (await api('GET', `/vault/${vaultId}/guardian`, owner.apiKey)).body
      .data as unknown as Guardian[]
    const { request } = await makePracticeMaterial({
      vaultId,
      vaultLabel: 'x',
      preset: 'standard',
      guardians,
      heirId: heir.id,
      sample: { kind: 'letter' },
      now: new Date(),
    })
    const challenge = randomUUID().replace(/-/g, '')
    const proofHash = rehearsalProofHash(rehearsalProof(generateVaultKey(), challenge))
    const started = await api('POST', `/vault/${vaultId}/rehearsal`, owner.apiKey, {
      ...request,
      challenge,
      proofHash,
    })
    expect(started.status).toBe(201)
    const token = await latestPracticeToken('hana@example.com')
    const report = await ok<RecoveryReport>('recoverFromService', {
      serviceUrl: service.url,
      accessToken: token,
      vaultId,
      shares: await latestPracticeKits(),
      outputDir: join(appDir, 'practice-out-2'),
    })
    expect(report.results).toEqual([expect.objectContaining({ ok: true })])
    expect(report.rehearsal).toMatchObject({ passed: false })
    expect(report.rehearsal!.message).toMatch(/different key/)
    expect(await ok<Rehearsal>('getRehearsal', { vaultId })).toMatchObject({
      state: 'running',
      passedAt: null,
      failedReports: 1,
    })
    await ok('endRehearsal', { vaultId })
  })

  it('manual trigger: startRelease puts the vault into releasing', async () => {
    const other = (await service.admin.createVault({ account: owner.accountId, preset: 'standard' })).vaultId
    await ok('configureRelease', { vaultId: other, trigger: 'manual' })
    const view = await ok<VaultView>('startRelease', { vaultId: other })
    expect(view.state).toBe('releasing')
    expect(view.releaseStartedAt).toEqual(expect.any(String))
  })
})

// ---------------------------------------------------------------------------------------------
// A service with only the spec's endpoints (a proxy answering 404 for the extensions).
// ---------------------------------------------------------------------------------------------

describe('a service without the extensions', () => {
  let service: RunningService
  let proxy: Server
  let proxyUrl: string
  let backend: VaultApp
  let owner: { accountId: string; apiKey: string }
  let vaultId: string
  const { ok, refused, serviceKnown } = client(() => backend)

  /** Routes a spec-only service lacks. */
  const HIDDEN = [
    /^\/(api|v1)\/service(\/.*)?$/,
    /^\/(api|v1)\/vault\/[^/]+\/release\/start$/,
    /^\/(api|v1)\/vault\/[^/]+\/rehearsal$/,
  ]
  /** Vault bodies: a spec-only service has no `name` field. */
  const VAULT_BODY = /^\/(api|v1)\/vault(\/[^/]+)?$/

  beforeAll(async () => {
    service = await startService({ dataDir: await tempDir('vault-safe-spec-svc-'), port: 0 })
    owner = await service.admin.createAccount({ email: 'spec@example.com' })
    vaultId = (await service.admin.createVault({ account: owner.accountId, preset: 'standard' })).vaultId
    const target = new URL(service.url)
    proxy = createServer((req, res) => {
      const path = (req.url ?? '').split('?')[0]!
      const hidden =
        HIDDEN.some((r) => r.test(path)) ||
        ((req.method === 'PATCH' || req.method === 'DELETE') && VAULT_BODY.test(path))
      if (hidden) {
        res.writeHead(404, { 'content-type': 'application/json' })
        res.end(
          JSON.stringify({
            error: { code: 'NOT_FOUND', message: `no route for ${req.method} ${path}`, status: 404 },
          }),
        )
        return
      }
      const forward = request(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          if (!VAULT_BODY.test(path) || !(answer.headers['content-type'] ?? '').includes('json')) {
            res.writeHead(answer.statusCode ?? 502, answer.headers)
            answer.pipe(res)
            return
          }
          const chunks: Buffer[] = []
          answer.on('data', (c: Buffer) => chunks.push(c))
          answer.on('end', () => {
            const body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
            for (const v of Array.isArray(body.data) ? body.data : body.data ? [body.data] : []) delete v.name
            const text = JSON.stringify(body)
            const headers = { ...answer.headers, 'content-length': String(Buffer.byteLength(text)) }
            res.writeHead(answer.statusCode ?? 502, headers)
            res.end(text)
          })
        },
      )
      req.pipe(forward)
    })
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`
    backend = createVaultApp({
      userDataDir: await tempDir('vault-safe-spec-app-'),
      mode: 'browser',
      version: '0',
      useKeychain: false,
    })
    await ok('connectService', { serviceUrl: proxyUrl, apiKey: owner.apiKey })
  })
  afterAll(async () => {
    await backend?.close()
    await new Promise((resolve) => proxy?.close(resolve))
    await service?.close()
  })

  it('the service is taken at its word for mail and offers no extensions', async () => {
    const summary = await serviceKnown()
    expect(summary).toMatchObject({ trial: false, mailConfigured: null, lastMailTest: null, extensions: [] })
  })

  it('a rename is kept on this device; the service is not asked', async () => {
    const renamed = await ok<VaultView>('renameVault', { vaultId, name: 'Kitchen drawer' })
    expect(renamed).toMatchObject({ name: 'Kitchen drawer', label: 'Kitchen drawer' })
    const direct = await fetch(`${service.url}/api/vault/${vaultId}`, {
      headers: { 'x-api-key': owner.apiKey },
    })
    expect(((await direct.json()) as { data: { name: string | null } }).data.name).toBeNull()
    const snapshot = await ok<VaultsSnapshot>('refreshVaults')
    expect(snapshot.vaults.find((v) => v.id === vaultId)?.name).toBe('Kitchen drawer')
    const cleared = await ok<VaultView>('renameVault', { vaultId, name: ' ' })
    expect(cleared.name).toBeNull()
  })

  it('startRelease: EXTENSION_MISSING with a clear message', async () => {
    await ok('configureRelease', { vaultId, trigger: 'manual' })
    const message = await refused('startRelease', { vaultId }, 'EXTENSION_MISSING')
    expect(message).toMatch(/cannot start a release from the app/)
    expect(message).toMatch(/dashboard/)
  })

  it('the mail test, deleting and practice runs: EXTENSION_MISSING; nothing is removed on this device', async () => {
    await refused('sendTestMail', undefined, 'EXTENSION_MISSING')
    await ok('importOwnerKit', {
      vaultId,
      words: encodeOwnerKitWords({ vaultKey: generateVaultKey(), vaultId }),
    })
    const message = await refused('deleteVault', { vaultId }, 'EXTENSION_MISSING')
    expect(message).toMatch(/cannot delete a vault/)
    expect((await ok<VaultView>('refreshVault', { vaultId })).keyOnDevice).toBe(true)
    expect(await ok('getRehearsal', { vaultId })).toBeNull()
    const heir = await ok<Heir>('addHeir', { vaultId, person: { name: 'Hal', email: 'hal@example.com' } })
    await refused(
      'startRehearsal',
      { vaultId, heirId: heir.id, sample: { kind: 'letter' } },
      'EXTENSION_MISSING',
    )
  })

  it('readiness: no practice runs on this service', async () => {
    const view = await ok<VaultView>('refreshVault', { vaultId })
    await expect
      .poll(
        async () =>
          (await ok<VaultView>('refreshVault', { vaultId })).readiness.items.find((i) => i.id === 'rehearsal')
            ?.detail,
      )
      .toMatch(/cannot run a practice release/)
    expect(view.readiness.items.find((i) => i.id === 'mail')?.met).toBe(true)
  })
})
