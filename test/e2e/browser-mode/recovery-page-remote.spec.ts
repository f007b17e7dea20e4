// The heir's recovery page reading a released vault from a distance, in Chromium, with two of three
// kits each time and every file compared with its original byte for byte: the built page
// (out/recovery-page/vault-recovery.html) opened at the service's /recover (served with its SHA-256,
// named in the heir e-mail; its CSP lets it reach that service only, so a gateway is refused) and from
// a saved copy on file:// (Origin "null": the service's CORS on the heir reads lets it in), from the
// service with the access code and from arlocal by the vault's tags. The page's downloads stand in for
// the folder picker Playwright cannot drive. A test page that runs the same remote sources without the
// page's UI pins the sources themselves (a wrong code reads as refused, not as a network failure).

import { spawnSync } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { type Browser, test as base, expect, type Page } from '@playwright/test'
import { build } from 'esbuild'
import { REMOTE_CONNECT_SOURCES } from '../../../src/recovery-page/remote-sources'
import { openArweaveBlobStore } from '../../../src/service/arweave-blob-store'
import { type RunningService, startService } from '../../../src/service/index'
import { SSS_PRESET_SHAPE } from '../../../src/shared/api'
import {
  collectBytes,
  encodeShareWords,
  encryptManifest,
  encryptStream,
  generateVaultKey,
  splitVaultKey,
} from '../../../src/vault-format'
import { type LocalArweave, startLocalArweave } from '../../service/local-arweave'
import type { ProbeRequest, ProbeResult } from '../support/remote-source-probe'

const DAY_MS = 86_400_000
const ROOT = join(import.meta.dirname, '../../..')
const BUILT_PAGE = join(ROOT, 'out/recovery-page/vault-recovery.html')

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')

/** The test page: the sources bundled into one inline script, under the recovery page's own policy. */
async function buildTestPage(): Promise<string> {
  const bundled = await build({
    entryPoints: [join(ROOT, 'test/e2e/support/remote-source-probe.ts')],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'chrome120',
    logLevel: 'warning',
  })
  // An inline script must not close its own element.
  const script = bundled.outputFiles[0]!.text.replaceAll('</script', '<\\/script')
  const hash = createHash('sha256').update(script).digest('base64')
  const policy = `default-src 'none'; script-src 'sha256-${hash}'; connect-src ${REMOTE_CONNECT_SOURCES.join(' ')}`
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${policy}">
<title>Remote sources</title></head><body><p>ready</p><script>${script}</script></body></html>`
}

async function probe(page: Page, kits: string[], request: Omit<ProbeRequest, 'kits'>): Promise<ProbeResult> {
  return page.evaluate(
    (r) => (globalThis as unknown as { probe: (r: ProbeRequest) => Promise<ProbeResult> }).probe(r),
    { ...request, kits: [kits[0]!, kits[2]!] },
  )
}

function policyViolations(page: Page): string[] {
  const found: string[] = []
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/.test(message.text())) found.push(message.text())
  })
  return found
}

/** A released vault on a service and on arlocal, the heir's access code and kits, the built pages. */
interface ReleasedVault {
  service: RunningService
  network: LocalArweave
  vaultId: string
  token: string
  kits: string[]
  /** The remote sources' test page on disk. */
  testPage: string
  /** SHA-256 of the built recovery page. */
  pageSha256: string
  /** Path inside the vault -> SHA-256 of the original. */
  originals: Record<string, string>
}

const test = base.extend<{ workDir: string }, { released: ReleasedVault }>({
  // Built once per worker (it takes a while): the tests only read from the service and arlocal.
  released: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's needs from this pattern
    async ({}, use) => {
      let now = Date.parse('2030-01-01T00:00:00.000Z')
      /** Path inside the vault -> SHA-256 of the original. */
      const originals: Record<string, string> = {}
      const temp = mkdtempSync(join(tmpdir(), 'vault-e2e-page-remote-'))
      const testPage = join(temp, 'remote-sources-probe.html')
      writeFileSync(testPage, await buildTestPage())
      const built = spawnSync(process.execPath, [join(ROOT, 'scripts/build-recovery-page.mjs')], {
        encoding: 'utf8',
      })
      expect(built.status, built.stderr).toBe(0)
      const pageSha256 = sha256(readFileSync(BUILT_PAGE))
      const service = await startService({
        dataDir: join(temp, 'service'),
        port: 0,
        clock: () => new Date(now),
        rateLimits: false,
        tickIntervalMs: 3_600_000,
        recoveryPage: BUILT_PAGE,
      })
      const { accountId, apiKey } = await service.admin.createAccount({ email: 'grandma@example.com' })
      const { vaultId } = await service.admin.createVault({ account: accountId, preset: 'standard' })
      await service.admin.addCredits({ account: accountId, credits: 1000 })
      const vaultKey = generateVaultKey()
      const kits = (await splitVaultKey(vaultKey, vaultId, SSS_PRESET_SHAPE.standard)).map(encodeShareWords)

      const network = await startLocalArweave('e2e-page-remote-')
      const store = await openArweaveBlobStore({
        gateway: network.gateway,
        walletFile: network.walletFile,
        cacheDir: join(temp, 'arweave-cache'),
      })
      const files: [string, Uint8Array][] = [
        ['letters/will.txt', Buffer.from('The house to Ana, the books to Ben.\n')],
        ['photos/wedding.jpg', randomBytes(1_500_000)],
      ]
      /** One blob onto the service (as the owner's app uploads it) and onto arlocal (as its Arweave store tags it). */
      const storeBlob = async (filename: string, blob: Uint8Array) => {
        const form = new FormData()
        form.append('filename', filename)
        form.append('file', new Blob([Buffer.from(blob)]), 'blob.bin')
        const uploaded = await fetch(`${service.url}/api/vault/${vaultId}/asset`, {
          method: 'POST',
          headers: { 'x-api-key': apiKey },
          body: form,
        })
        expect(uploaded.status).toBe(201)
        const stored = store.newTempPath()
        writeFileSync(stored, blob)
        await store.put(stored, {
          sha256Hex: sha256(blob),
          size: blob.length,
          labels: { vaultId, assetId: filename },
        })
      }
      const writtenAtMs = now - DAY_MS
      for (const [path, plain] of files) {
        originals[path] = sha256(plain)
        const identity = { path, size: plain.length, writtenAtMs }
        await storeBlob(
          `${path.split('/').pop()}.vault`,
          await collectBytes(encryptStream([plain], { vaultKey, vaultId, identity })),
        )
      }
      // The vault's list of files, as the owner's app keeps it: recovery goes by it.
      const entries = files
        .map(([path, plain]) => ({ path, size: plain.length, sha256: sha256(plain), writtenAtMs }))
        .sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)))
      await storeBlob(
        'manifest.vault',
        await encryptManifest(
          { sequence: 1, writtenAtMs: writtenAtMs + 1000, entries },
          { vaultKey, vaultId },
        ),
      )
      expect((await fetch(`${network.gateway}/mine`)).status).toBe(200)

      const heir = await fetch(`${service.url}/api/vault/${vaultId}/heir`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Sam', email: 'sam@example.com' }),
      })
      expect(heir.status).toBe(201)
      await service.admin.startRelease({ vault: vaultId })
      now += 30 * DAY_MS + 60_000
      expect((await service.tick()).released.map((r) => r.vaultId)).toEqual([vaultId])
      const mail = (await service.admin.outbox({ vault: vaultId })).messages.find(
        (m) => m.to === 'sam@example.com' && /hk_/.test(m.body),
      )!
      const token = /(hk_[A-Za-z0-9_-]{43})/.exec(mail.body)![1]!
      // The e-mail names the page this service serves, with its SHA-256.
      expect(mail.body).toContain(`${service.url}/recover`)
      expect(mail.body).toContain(pageSha256)

      await use({ service, network, vaultId, token, kits, testPage, pageSha256, originals })
      await service.close()
      await network.stop()
      rmSync(temp, { recursive: true, force: true })
    },
    { scope: 'worker', timeout: 120_000 },
  ],
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's needs from this pattern
  workDir: async ({}, use) => {
    const dir = mkdtempSync(join(tmpdir(), 'vault-e2e-page-remote-test-'))
    await use(dir)
    rmSync(dir, { recursive: true, force: true })
  },
})

/** The built page at `url`, without the folder API (the page then offers each file as a download). */
async function openRecoveryPage(
  browser: Browser,
  url: string,
): Promise<{ page: Page; problems: string[]; close(): Promise<void> }> {
  const context = await browser.newContext({ locale: 'en-GB', acceptDownloads: true })
  const page = await context.newPage()
  const problems: string[] = []
  page.on('pageerror', (error) => problems.push(error.message))
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text())
  })
  await context.addInitScript(() => {
    ;(window as unknown as { showDirectoryPicker?: unknown }).showDirectoryPicker = undefined
  })
  await page.goto(url)
  await expect(page.locator('body[data-ready="true"]')).toBeAttached()
  return { page, problems, close: () => context.close() }
}

async function enterTwoKits(page: Page, kits: string[]): Promise<void> {
  await page.getByLabel('Kit 1', { exact: true }).fill(kits[0]!)
  await page.getByLabel('Kit 1', { exact: true }).blur()
  await page.getByRole('button', { name: 'Add another kit' }).click()
  await page.getByLabel('Kit 2', { exact: true }).fill(kits[2]!)
  await page.getByLabel('Kit 2', { exact: true }).blur()
  await expect(page.locator('#kits-summary')).toHaveText(
    '2 kits entered — enough to open the files (2 of 3 needed).',
  )
}

/** Recovers, then downloads every file the report offers and compares it with its original. */
async function recoverAndCompare(
  page: Page,
  originals: Record<string, string>,
  shotName: string,
): Promise<void> {
  await page.getByRole('button', { name: 'Recover the files' }).click()
  await expect(page.locator('#report-summary')).toHaveText('All 2 files recovered and checked.', {
    timeout: 60_000,
  })
  await page.screenshot({ path: `test-results/screenshots/${shotName}.png`, fullPage: true })
  for (const [path, sha] of Object.entries(originals)) {
    const link = page.locator('#results li', { hasText: path }).getByRole('link', { name: 'Download' })
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()])
    expect(download.suggestedFilename()).toBe(path.replaceAll('/', ' - '))
    expect(sha256(await readFile((await download.path())!)), path).toBe(sha)
  }
}

test('the page opened at the service’s /recover recovers with the access code and two kits; a gateway is out of its reach', async ({
  browser,
  released: { service, network, vaultId, token, kits, pageSha256, originals },
}) => {
  const response = await fetch(`${service.url}/recover`)
  expect(response.headers.get('x-content-sha256')).toBe(pageSha256)
  expect(response.headers.get('content-security-policy')).toContain("connect-src 'self'")
  await response.arrayBuffer()
  const { page, problems, close } = await openRecoveryPage(browser, `${service.url}/recover`)
  await page.getByRole('radio', { name: /From the vault service/ }).check()
  await page.getByLabel('Vault Service address').fill(service.url)
  await page.getByLabel('Your personal access code (starts with hk_)').fill(token)
  await enterTwoKits(page, kits)
  await expect(page.getByLabel(/^Vault id/)).toHaveValue(vaultId)
  await recoverAndCompare(page, originals, 'recovery-page-served-report')
  expect(problems).toEqual([])

  // Served by the service, the page may talk to that service only (its CSP): Arweave is refused.
  await page.getByRole('radio', { name: 'From Arweave' }).check()
  await page.getByRole('textbox', { name: 'Arweave gateway' }).fill(network.gateway)
  await page.getByRole('button', { name: 'Recover the files' }).click()
  await expect(page.locator('#error')).toContainText(
    `This page was opened from a vault service's address, so it may connect to that service only, not to the Arweave gateway ${network.gateway}. Save the page`,
  )
  await page.screenshot({
    path: 'test-results/screenshots/recovery-page-served-gateway-refused.png',
    fullPage: true,
  })
  await close()
})

test('a saved copy opened from file:// recovers from the service (CORS for Origin null) and from arlocal', async ({
  browser,
  released: { service, network, token, kits, pageSha256, originals },
  workDir,
}) => {
  const saved = join(workDir, 'saved', 'vault-recovery.html')
  const served = Buffer.from(await (await fetch(`${service.url}/recover`)).arrayBuffer())
  // The heir checks the copy in hand against the value on a kit or in RECOVERY.md.
  expect(sha256(served)).toBe(pageSha256)
  mkdirSync(join(workDir, 'saved'), { recursive: true })
  writeFileSync(saved, served)

  const fromService = await openRecoveryPage(browser, pathToFileURL(saved).href)
  await fromService.page.getByRole('radio', { name: /From the vault service/ }).check()
  await fromService.page.getByLabel('Vault Service address').fill(service.url)
  await fromService.page.getByLabel('Your personal access code (starts with hk_)').fill(token)
  await enterTwoKits(fromService.page, kits)
  await recoverAndCompare(fromService.page, originals, 'recovery-page-file-service-report')
  expect(fromService.problems).toEqual([])
  await fromService.close()

  const fromArweave = await openRecoveryPage(browser, pathToFileURL(saved).href)
  await fromArweave.page.getByRole('radio', { name: 'From Arweave' }).check()
  await fromArweave.page.getByRole('textbox', { name: 'Arweave gateway' }).fill(network.gateway)
  await enterTwoKits(fromArweave.page, kits)
  await recoverAndCompare(fromArweave.page, originals, 'recovery-page-file-arweave-report')
  expect(fromArweave.problems).toEqual([])
  await fromArweave.close()
})

test('the remote sources under the page’s policy from file://: byte for byte, and a wrong code told as refused', async ({
  page,
  released: { service, network, token, kits, testPage, originals },
}) => {
  const violations = policyViolations(page)
  await page.goto(pathToFileURL(testPage).href)
  await expect(page.getByText('ready')).toBeVisible()
  const fromService = await probe(page, kits, {
    kind: 'service',
    serviceUrl: service.url,
    accessToken: token,
  })
  expect(fromService).toEqual({ ok: true, labels: expect.any(Array), files: originals })
  const fromArweave = await probe(page, kits, { kind: 'arweave', gatewayUrl: network.gateway })
  expect(fromArweave).toEqual({ ok: true, labels: expect.any(Array), files: originals })
  expect((fromArweave as { labels: string[] }).labels.every((l) => /^arweave:[\w-]{43}$/.test(l))).toBe(true)
  // The 401 carries CORS too, so the page can tell a wrong code from a network failure.
  const refused = await probe(page, kits, {
    kind: 'service',
    serviceUrl: service.url,
    accessToken: `hk_${'A'.repeat(43)}`,
  })
  expect(refused).toMatchObject({ ok: false, code: 'ACCESS_REFUSED' })
  expect(violations).toEqual([])
})
