// The heir's side of a release, in the real window: an owner's vault (set up through the app core,
// files uploaded encrypted) misses its check-in and is released 30 days later; the heir, on another
// machine (a fresh app data folder, no keys), copies what the e-mail says into the Recovery screen,
// sees the files, enters one kit ("2 of 3 needed"), then a second, and gets every file back,
// byte-identical. A wrong access code, an unreachable service and a file altered on the service are
// explained. Screenshots: test-results/screenshots/heir-*.png.
import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import type { Page } from '@playwright/test'
import { SSS_PRESET_SHAPE } from '../../../src/shared/api'
import { encodeShareWords, splitVaultKey } from '../../../src/vault-format'
import {
  blobPathOf,
  DAY_MS,
  followGuardianLink,
  guardianLink,
  heirToken,
  ownerVaultKey,
  type ReleaseWorld,
  sha256File,
  startReleaseWorld,
  writeSeededFile,
} from '../../release/release-fixture'
import { expect, test as journey } from '../support/fixtures'

/** A vault released to its heir Sam: its service, the heir's access code, two kits' words, the files' hashes. */
interface Released {
  world: ReleaseWorld
  vaultId: string
  token: string
  kits: string[]
  originals: Map<string, string>
}

const screenshot = (page: Page, name: string) =>
  page.screenshot({ path: `test-results/screenshots/heir-${name}.png`, fullPage: true })

/** The owner's vault set up through the app core, files uploaded, then released: no check-in, nobody cancels. */
async function releasedVault(): Promise<Released> {
  const world = await startReleaseWorld('grandma@example.com')
  const originals = new Map<string, string>()
  const owner = await world.ownerCore()
  const vaultId = (await owner.vaults.create({ preset: 'standard' })).id
  const guardians = ['Aunt May <may@example.com>', 'Dr. Osei <osei@example.com>', 'Tom Li <tom@example.com>']
  for (const g of guardians) {
    const [, name, email] = /^(.*) <(.*)>$/.exec(g)!
    await owner.vaults.addGuardian(vaultId, { name: name!, email: email! })
    await followGuardianLink(guardianLink(await world.mail.waitFor(email!), 'accept'))
  }
  await owner.vaults.addHeir(vaultId, { name: 'Sam', email: 'sam@example.com' })
  await owner.vaults.configureRelease(vaultId, {
    trigger: 'dead_man_switch',
    config: { checkInFrequency: 'weekly' },
  })
  const source = await world.tempDir('vault-e2e-heir-src-')
  await writeSeededFile(join(source, 'Photos', 'wedding.jpg'), 700_000, 'wedding')
  await writeSeededFile(join(source, 'Photos', 'garden.jpg'), 250_000, 'garden')
  // Above the 4 MiB bundling threshold: uploaded on its own. The three others travel in one bundle.
  await writeSeededFile(join(source, 'voice message.m4a'), 4_500_000, 'voice')
  await writeSeededFile(join(source, 'will.pdf'), 90_000, 'will')
  for (const name of ['Photos/wedding.jpg', 'Photos/garden.jpg', 'voice message.m4a', 'will.pdf']) {
    originals.set(name, await sha256File(join(source, name)))
  }
  await owner.uploads.enqueue({
    vaultId,
    paths: [join(source, 'Photos'), join(source, 'voice message.m4a'), join(source, 'will.pdf')],
  })
  await owner.uploads.idle()
  const kits = (
    await splitVaultKey(await ownerVaultKey(owner, vaultId), vaultId, SSS_PRESET_SHAPE.standard)
  ).map(encodeShareWords)

  // No check-in; nobody cancels.
  world.advance(7 * DAY_MS + 60_000)
  await world.service.tick()
  world.advance(30 * DAY_MS)
  await world.service.tick()
  const token = heirToken(await world.mail.waitFor('sam@example.com'))
  return { world, vaultId, token, kits, originals }
}

const test = journey.extend<{
  released: Released
  /** The heir's fresh app on Recovery, the vault's 4 files listed with the right access code. */
  filesShown: Released
  /** Then two kits entered and a folder for the files chosen in the test's app folder. */
  twoKitsEntered: Released
}>({
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's needs from this pattern
  released: async ({}, use) => {
    const released = await releasedVault()
    await use(released)
    await released.world.close()
  },
  filesShown: async ({ released, ownApp, page }, use) => {
    await page.goto(ownApp.url)
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Recovery' }).click()
    await page.getByLabel('Vault Service address').fill(released.world.service.url)
    await page.getByLabel(/personal access code/).fill(released.token)
    await page.getByLabel(/Vault id/).fill(released.vaultId)
    await page.getByRole('button', { name: 'Show the files' }).click()
    await expect(page.getByTestId('heir-files')).toContainText('The vault holds 4 files')
    await use(released)
  },
  twoKitsEntered: async ({ filesShown, ownApp, page }, use) => {
    await page.getByLabel('Kit 1').fill(filesShown.kits[1]!)
    await page.getByRole('button', { name: 'Add another kit' }).click()
    await page.getByLabel('Kit 2').fill(filesShown.kits[2]!)
    await page.getByLabel('Kit 2').blur()
    await expect(page.getByTestId('share-count')).toContainText('2 kits entered — enough to open the files')
    await page
      .getByLabel('Folder for the recovered files')
      .fill(join(ownApp.userDataDir, 'Recovered for Sam'))
    await use(filesShown)
  },
})

test.use({ viewport: { width: 1180, height: 900 } })
// Each test's own released vault (uploads, then a release) is built within its time.
test.describe.configure({ timeout: 120_000 })

test('the heir opens Recovery and copies what the e-mail says; a wrong code is explained', async ({
  page,
  ownApp: app,
  released,
}) => {
  const { world, token, vaultId } = released
  const shot = (name: string) => screenshot(page, name)
  await page.goto(app.url)
  // A fresh app opens on the owner's set-up screen: an heir who pastes the token there is redirected.
  await expect(page.getByTestId('heir-pointer')).toContainText('Did someone leave you their files?')
  await page.getByLabel('Service address').fill(world.service.url)
  await page.getByLabel('API key').fill(token)
  await page.getByRole('button', { name: 'Connect', exact: true }).click()
  await expect(page.getByRole('alert')).toContainText('This is an heir access code')
  await shot('0-first-screen')
  await page.getByRole('button', { name: 'Go to Recovery' }).click()
  await expect(page.getByRole('heading', { name: 'Recovery', level: 1 })).toBeVisible()
  await shot('1-start')

  await page.getByLabel('Vault Service address').fill(world.service.url)
  await page.getByLabel(/personal access code/).fill(`${token.slice(0, -3)}xyz`)
  await page.getByLabel(/Vault id/).fill(vaultId)
  await page.getByRole('button', { name: 'Show the files' }).click()
  await expect(page.getByRole('alert')).toContainText('did not accept this access code')
  await shot('2-wrong-code')

  await page.getByLabel(/personal access code/).fill(` ${token} `)
  await page.getByRole('button', { name: 'Show the files' }).click()
  const files = page.getByTestId('heir-files')
  await expect(files).toContainText('The vault holds 4 files')
  // Names were hidden from the service (the default): they are sealed inside the files and appear
  // once these are downloaded and opened; the list knows only how many there are and their sizes.
  await expect(files).not.toContainText('voice message')
  await expect(files).not.toContainText('wedding')
  // Four files in two rows: the row of the small ones says it holds three.
  await expect(files.getByRole('listitem')).toHaveCount(2)
  await expect(files.getByRole('listitem').filter({ hasText: '3 files packed together' })).toHaveCount(1)
  await shot('3-files')
})

test('one kit is not enough; two are; every file comes back identical', async ({
  page,
  ownApp: app,
  filesShown,
  pageErrors: consoleErrors,
}) => {
  const { kits, originals } = filesShown
  const shot = (name: string) => screenshot(page, name)
  const outDir = join(app.userDataDir, 'Recovered for Sam')
  await page.getByLabel('Kit 1').fill(kits[1]!)
  await page.getByLabel('Kit 1').blur()
  await expect(page.getByTestId('share-count')).toContainText('1 kit entered — 2 of 3 needed')
  await page.getByLabel('Folder for the recovered files').fill(outDir)
  await expect(page.getByRole('button', { name: 'Recover the files' })).toBeDisabled()
  await shot('4-one-kit')

  await page.getByRole('button', { name: 'Add another kit' }).click()
  await page.getByLabel('Kit 2').fill(kits[2]!)
  await page.getByLabel('Kit 2').blur()
  await expect(page.getByTestId('share-count')).toContainText('2 kits entered — enough to open the files')
  await page.getByRole('button', { name: 'Recover the files' }).click()
  const report = page.getByTestId('recovery-report')
  await expect(report).toContainText('All 4 files recovered and checked', { timeout: 30_000 })
  await shot('5-done')

  const written = (await readdir(outDir, { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile())
    .map((e) => relative(outDir, join(e.parentPath, e.name)))
    .sort()
  expect(written).toEqual([...originals.keys()].sort())
  for (const [name, hash] of originals) expect(await sha256File(join(outDir, name)), name).toBe(hash)

  // Pressing it again changes nothing: every file is kept as it is.
  await page.getByRole('button', { name: 'Recover the files' }).click()
  await expect(report.getByText('Already recovered by an earlier run')).toHaveCount(4)
  expect(consoleErrors.filter((e) => !/401|Unauthorized/i.test(e))).toEqual([])
})

test('the service cannot be reached: the run stops, says what to do, and offers to continue', async ({
  page,
  ownApp: app,
  twoKitsEntered,
}) => {
  const { world } = twoKitsEntered
  const shot = (name: string) => screenshot(page, name)
  await page.getByLabel('Vault Service address').fill('http://127.0.0.1:9')
  await page.getByLabel('Folder for the recovered files').fill(join(app.userDataDir, 'Second try'))
  await page.getByRole('button', { name: 'Recover the files' }).click()
  const report = page.getByTestId('recovery-report')
  await expect(report.getByRole('alert')).toContainText('could not be reached', { timeout: 20_000 })
  await expect(page.getByRole('button', { name: 'Continue where it stopped' })).toBeVisible()
  await shot('6-unreachable')
  await page.getByLabel('Vault Service address').fill(world.service.url)
})

test('a file altered on the service is refused and listed; the others are recovered', async ({
  page,
  ownApp: app,
  twoKitsEntered,
}) => {
  const { world, vaultId, originals } = twoKitsEntered
  const shot = (name: string) => screenshot(page, name)
  const assets = (await (await world.ownerCore()).vaults.listAssets(vaultId)).data
  // will.pdf is the bundle's last file: a byte near the bundle's end lies in its content.
  const bundle = assets.find(
    (a) => (a as typeof a & { metadata?: { bundle?: boolean } }).metadata?.bundle === true,
  )!
  const blob = blobPathOf(world.serviceDir, bundle.storageTxId)
  const bytes = await readFile(blob)
  bytes[bytes.length - 5_000]! ^= 0x20
  await writeFile(blob, bytes)

  const outDir = join(app.userDataDir, 'Third try')
  await page.getByLabel('Folder for the recovered files').fill(outDir)
  await page.getByRole('button', { name: /Recover the files|Continue where it stopped/ }).click()
  const report = page.getByTestId('recovery-report')
  await expect(report).toContainText('3 of 4 files recovered', { timeout: 30_000 })
  await expect(report).toContainText('will.pdf: The bundle holding this file')
  await expect(report).toContainText('was changed or damaged at or before this file')
  await shot('7-damaged-file')
  await expect(readFile(join(outDir, 'will.pdf'))).rejects.toThrow(/ENOENT/)
  expect(await sha256File(join(outDir, 'voice message.m4a'))).toBe(originals.get('voice message.m4a'))
})
