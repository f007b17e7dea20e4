// The release path end to end, on a real service with real e-mail on loopback and a moving clock:
// the owner sets up a 2-of-3 vault through the app core (guardians accept through the links in their
// invitations, two heirs, weekly dead man's switch, a file over 200 MB and a folder uploaded
// encrypted), misses a check-in, gets every contestation alert once, the app raises the alarm, nobody
// cancels, the heirs get their e-mails, and an heir on another machine recovers every file
// byte-identical - through the library (with a download cut off and resumed) and through the CLI.

import { execFile } from 'node:child_process'
import { readdir, stat, writeFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { VaultSession } from '../../src/main/core/vault-session'
import type { ReleaseAlarm } from '../../src/main/core/vaults/vault-watcher'
import { recoverVaultKey } from '../../src/recovery'
import { DOWNLOADS_FOLDER, recoverFromService } from '../../src/recovery/heir-recovery'
import { SSS_PRESET_SHAPE } from '../../src/shared/api'
import { encodeShareWords, splitVaultKey } from '../../src/vault-format'
import { runOnTerminal } from '../support/on-terminal'
import {
  DAY_MS,
  followGuardianLink,
  guardianLink,
  heirToken,
  ownerVaultKey,
  Relay,
  type ReleaseWorld,
  sha256File,
  startReleaseWorld,
  writeSeededFile,
} from './release-fixture'

const run = promisify(execFile)
/** The recovery tool from its source (what `npm run recover` bundles), so no build step can race. */
const RECOVER_CLI = ['--import', 'tsx', 'src/recovery/cli.ts']
const BIG_BYTES = 200 * 1024 * 1024 + 12_345 // over 200 MB, not a whole number of chunks

let world: ReleaseWorld
let owner: VaultSession
let vaultId: string
let shares: string[]
let originals: Map<string, string> // relative path -> sha256
const guardians = [
  { name: 'Greta Lind', email: 'greta@example.com' },
  { name: 'Gus Okafor', email: 'gus@example.com' },
  { name: 'Gloria Reyes', email: 'gloria@example.com' },
]
const heirs = [
  { name: 'Hana Marsh', email: 'hana@example.com' },
  { name: 'Hugo Marsh', email: 'hugo@example.com' },
]

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = []
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) out.push(relative(dir, join(entry.parentPath, entry.name)))
  }
  return out.sort()
}

async function expectIdentical(outDir: string) {
  expect(await filesUnder(outDir)).toEqual([...originals.keys()].sort())
  for (const [name, hash] of originals) expect(await sha256File(join(outDir, name)), name).toBe(hash)
}

beforeAll(async () => {
  world = await startReleaseWorld()
  owner = await world.ownerCore()
}, 60_000)

afterAll(async () => {
  await world?.close()
})

describe("dead man's switch release, from a missed check-in to the heirs holding the files", () => {
  it('owner: 2-of-3 vault, guardians accept by e-mail link, two heirs, weekly switch, files uploaded encrypted', async () => {
    const vault = await owner.vaults.create({ preset: 'standard' })
    vaultId = vault.id
    for (const g of guardians) await owner.vaults.addGuardian(vaultId, g)
    for (const g of guardians) {
      const invitation = await world.mail.waitFor(g.email, (m) => m.subject.includes('guardian'))
      const accepted = await followGuardianLink(guardianLink(invitation, 'accept'))
      expect(accepted.status).toBe(200)
    }
    expect((await owner.vaults.listGuardians(vaultId)).map((g) => g.status)).toEqual([
      'accepted',
      'accepted',
      'accepted',
    ])
    for (const h of heirs) await owner.vaults.addHeir(vaultId, h)
    await owner.vaults.configureRelease(vaultId, {
      trigger: 'dead_man_switch',
      config: { checkInFrequency: 'weekly' },
    })

    const source = await world.tempDir('vault-release-src-')
    await writeSeededFile(join(source, 'home-video.mp4'), BIG_BYTES, 'home video')
    await writeSeededFile(join(source, 'photos', 'beach.jpg'), 300_001, 'beach')
    await writeSeededFile(join(source, 'photos', '2019', 'birthday cake.jpg'), 65_536, 'cake')
    await writeFile(join(source, 'letter.txt'), 'To my family: the passwords are in the blue folder.\n')
    originals = new Map()
    for (const name of await filesUnder(source)) originals.set(name, await sha256File(join(source, name)))

    await owner.uploads.enqueue({
      vaultId,
      paths: [join(source, 'home-video.mp4'), join(source, 'photos'), join(source, 'letter.txt')],
    })
    await owner.uploads.idle()
    const items = owner.uploads.list()
    expect(items.map((i) => [i.relativePath, i.state]).sort()).toEqual([
      ['home-video.mp4', 'done'],
      ['letter.txt', 'done'],
      ['photos/2019/birthday cake.jpg', 'done'],
      ['photos/beach.jpg', 'done'],
    ])
    // What the service stores is ciphertext: the file behind its sealed size, write time and name (18 bytes + the
    // path), 16 bytes per 16 KiB chunk and a 56-byte header larger.
    const assets = (await owner.vaults.listAssets(vaultId)).data
    // The service knows it only by a neutral name: this computer's upload list says which asset it is.
    const bigId = items.find((i) => i.relativePath === 'home-video.mp4')!.asset!.id
    const big = assets.find((a) => a.id === bigId)!
    const sealed = 18 + 'home-video.mp4'.length + BIG_BYTES
    expect(big.sizeBytes).toBe(56 + sealed + 16 * (Math.floor(sealed / 16384) + 1))

    // The guardians' kits: the key split 2-of-3, as words.
    const key = await ownerVaultKey(owner, vaultId)
    shares = (await splitVaultKey(key, vaultId, SSS_PRESET_SHAPE.standard)).map(encodeShareWords)
  }, 90_000)

  it('no check-in: the deadline passes, the release starts, the app raises the alarm, even when started later', async () => {
    const ownerAlarms: ReleaseAlarm[] = []
    owner.events.on('alarm', (a) => ownerAlarms.push(a))
    world.advance(7 * DAY_MS + 60_000)
    const report = await world.service.tick()
    expect(report.releasesStarted).toEqual([{ vaultId, reason: expect.any(String) }])
    // The running app sees it on its next poll.
    await owner.onResume()
    expect(ownerAlarms).toEqual([expect.objectContaining({ vaultId, daysLeftToCancel: 30 })])
    expect(owner.tray()).toMatchObject({ level: 'releasing' })

    // The owner's app was closed when it happened; started now, it raises the alarm at once.
    const later = await world.ownerCore()
    const alarms: ReleaseAlarm[] = []
    later.events.on('alarm', (a) => alarms.push(a))
    later.start()
    await expect.poll(() => alarms.length, { timeout: 5_000 }).toBe(1)
    expect(alarms[0]).toMatchObject({ vaultId, daysLeftToCancel: 30 })
    expect(JSON.stringify(alarms[0])).toMatch(/30 days/)
    await later.close()
  })

  it("the owner's alerts arrive on days 0, 3, 7, 14, 21 and 28, each once; heirs hear nothing", async () => {
    for (let day = 1; day <= 29; day++) {
      world.advance(DAY_MS)
      await world.service.tick()
      await world.service.tick() // a second tick the same day sends nothing more
      if (day === 10) {
        // The running app after the machine slept: the tray counts the days left.
        await owner.onResume()
        expect(owner.tray().text).toMatch(/20 days left to cancel/)
      }
    }
    await expect
      .poll(() => world.mail.to(world.ownerEmail).filter((m) => /releas/i.test(m.subject)).length, {
        timeout: 10_000,
      })
      .toBe(6)
    const subjects = world.mail.to(world.ownerEmail).map((m) => m.subject)
    expect(subjects.filter((s) => s.startsWith('A release of your vault has started'))).toHaveLength(1)
    for (const day of [3, 7, 14, 21, 28]) {
      expect(
        subjects.filter((s) => s.startsWith(`Reminder (day ${day})`)),
        `day ${day}`,
      ).toHaveLength(1)
    }
    expect(subjects.filter((s) => /^Reminder \(day (?!(3|7|14|21|28)\))/.test(s))).toEqual([])
    for (const h of heirs) expect(world.mail.to(h.email)).toEqual([])
  }, 30_000)

  it('day 30: released; each heir gets the access code, the service address, the guardians to ask and how to recover', async () => {
    world.advance(DAY_MS)
    const report = await world.service.tick()
    expect(report.released).toEqual([{ vaultId, heirsNotified: 2 }])
    expect((await owner.vaults.get(vaultId)).state).toBe('released')
    const tokens = new Set<string>()
    for (const h of heirs) {
      const mail = await world.mail.waitFor(h.email)
      expect(mail.text).toContain(world.service.url)
      expect(mail.text).toContain(vaultId)
      for (const g of guardians) expect(mail.text).toContain(g.email)
      expect(mail.text).toMatch(/Vault Desktop/)
      expect(mail.text).toMatch(/choose "Recovery" on the left/)
      const token = heirToken(mail)
      expect(mail.text).toContain(`npm run recover -- --service ${world.service.url} --token ${token}`)
      tokens.add(token)
    }
    expect(tokens.size).toBe(2)
  })

  it('heir with the app code on another machine: two shares, a cut-off download resumes, every file identical', async () => {
    const mail = world.mail.to(heirs[0]!.email)[0]!
    const accessToken = heirToken(mail)
    const key = await recoverVaultKey({ shareWords: [shares[0]!, shares[2]!] })
    expect(key.vaultId).toBe(vaultId)
    const outDir = join(await world.tempDir('vault-heir-a-'), 'Recovered')
    const common = { accessToken, vaultId, vaultKey: key.vaultKey, outDir, maxRetries: 0, timeoutMs: 5_000 }

    // The service is not reachable at all: the run stops at once and says what to do.
    const offline = await recoverFromService({ ...common, serviceUrl: 'http://127.0.0.1:9' })
    expect(offline.stopped?.code).toBe('SERVICE_UNREACHABLE')
    expect(offline.stopped?.message).toMatch(/could not be reached.*start the recovery again/s)

    // The connection drops 60 MB into the downloads.
    const cutting = await Relay.start(world.service.url, 60 * 1024 * 1024)
    const first = await recoverFromService({ ...common, serviceUrl: cutting.url })
    await cutting.close()
    expect(first.stopped?.code).toBe('SERVICE_UNREACHABLE')
    expect(first.stopped?.message).toMatch(/continues where it stopped/)
    // Files downloaded whole wait for the others (decrypting starts once all are here); one was cut off.
    const assetSizes = new Map((await owner.vaults.listAssets(vaultId)).data.map((a) => [a.id, a.sizeBytes]))
    const parts = await readdir(join(outDir, DOWNLOADS_FOLDER))
    const cutOff: number[] = []
    for (const part of parts) {
      const size = (await stat(join(outDir, DOWNLOADS_FOLDER, part))).size
      if (size !== assetSizes.get(part.replace(/\.part$/, ''))) cutOff.push(size)
    }
    expect(cutOff.length).toBe(1)
    const partialSize = cutOff[0]!
    expect(partialSize).toBeGreaterThan(0)
    expect(first.results.some((r) => r.status === 'not-reached')).toBe(true)
    expect(first.results.every((r) => r.status === 'not-reached')).toBe(true)
    // Nothing half-written under a real name.
    for (const name of await filesUnder(outDir)) {
      if (name.startsWith(DOWNLOADS_FOLDER)) continue
      expect(await sha256File(join(outDir, name))).toBe(originals.get(name))
    }

    // Again: finished files are kept, the cut-off download continues from where it stopped.
    const relay = await Relay.start(world.service.url)
    const second = await recoverFromService({ ...common, serviceUrl: relay.url })
    await relay.close()
    expect(second.stopped).toBeUndefined()
    expect(second.results.every((r) => r.status === 'recovered' || r.status === 'kept')).toBe(true)
    const resumed = relay.requests.find((r) => /\/content /.test(r) && /^range: bytes=(\d+)-$/im.test(r))
    expect(resumed, 'a ranged request resumed the download').toBeTruthy()
    expect(Number(/^range: bytes=(\d+)-$/im.exec(resumed!)![1])).toBe(partialSize)
    await expectIdentical(outDir)

    // A third run changes nothing.
    const third = await recoverFromService({ ...common, serviceUrl: world.service.url })
    expect(third.results.map((r) => r.status)).toEqual(['kept', 'kept', 'kept', 'kept'])
    await expectIdentical(outDir)
  }, 90_000)

  /** The tool from the service with the heir's code and the two shares the app's heir did not use. */
  const heirCliArgs = (accessToken: string, outDir: string) => [
    ...RECOVER_CLI,
    '--service',
    world.service.url,
    '--token',
    accessToken,
    '--share-words',
    shares[1]!,
    '--share-words',
    shares[2]!,
    '--out',
    outDir,
  ]

  it('heir with the command-line tool: --service and --token with two other shares', async () => {
    const accessToken = heirToken(world.mail.to(heirs[1]!.email)[0]!)
    const outDir = join(await world.tempDir('vault-heir-b-'), 'from-cli')
    const { stdout, stderr } = await run(process.execPath, heirCliArgs(accessToken, outDir))
    expect(stderr).toContain(`vault ${vaultId}`)
    expect(stderr).toContain('All 4 file(s) recovered')
    expect(stdout).toContain('home-video.mp4')
    await expectIdentical(outDir)
  }, 90_000)

  it('on a terminal, the tool redraws its progress line only when it changes, not for every piece downloaded', async () => {
    const accessToken = heirToken(world.mail.to(heirs[1]!.email)[0]!)
    const outDir = join(await world.tempDir('vault-heir-tty-'), 'from-cli')
    const terminal = await runOnTerminal([process.execPath, ...heirCliArgs(accessToken, outDir)])
    expect(terminal).toContain('All 4 file(s) recovered')
    const redraws = terminal.match(/\[\d\/\d\] \d+% (downloading|checking) /g) ?? []
    expect(redraws.length).toBeGreaterThan(10)
    expect(redraws.some((line) => line.includes('100%'))).toBe(true)
    // Over 3,200 pieces of 64 KiB arrive for the 200 MB file; the percentage changes at most 100 times.
    expect(redraws.length).toBeLessThan(400)
    expect(new Set(redraws).size).toBe(redraws.length)
    await expectIdentical(outDir)
  }, 90_000)
})
