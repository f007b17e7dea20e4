// The heir's recovery page reading a released vault from a distance, in Chromium: from the Vault Service
// with the access code, opened at the service's /recover (its CSP lets it reach only that service) and
// from a saved copy on file:// (Origin "null": the service's CORS on the heir reads lets it in), and
// from arlocal by the vault's tags; each time the vault key is rebuilt from two of three kits and every
// file comes back byte for byte. The page here is a test page that runs the page's own remote sources
// (src/recovery-page/remote-sources.ts, bundled as the page bundles them) under the page's policy; the
// built page itself (out/recovery-page/vault-recovery.html), when there is one, is served at /recover
// with its SHA-256 and loads without a policy violation.
import { createHash, randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { expect, type Page, test } from '@playwright/test'
import { build } from 'esbuild'
import { REMOTE_CONNECT_SOURCES } from '../../../src/recovery-page/remote-sources'
import { type ArweaveBlobStore, openArweaveBlobStore } from '../../../src/service/arweave-blob-store'
import { type RunningService, startService } from '../../../src/service/index'
import { SSS_PRESET_SHAPE } from '../../../src/shared/api'
import {
  collectBytes,
  encodeShareWords,
  encryptStream,
  generateVaultKey,
  splitVaultKey,
} from '../../../src/vault-format'
import { type LocalArweave, startLocalArweave } from '../../service/local-arweave'
import type { ProbeRequest, ProbeResult } from '../support/remote-source-probe'

test.describe.configure({ mode: 'serial' })

const DAY_MS = 86_400_000
const ROOT = join(import.meta.dirname, '../../..')
const BUILT_PAGE = join(ROOT, 'out/recovery-page/vault-recovery.html')

let temp: string
let service: RunningService
let network: LocalArweave
let store: ArweaveBlobStore
let vaultId: string
let token: string
let kits: string[]
let testPage: string
let now = Date.parse('2030-01-01T00:00:00.000Z')
/** Path inside the vault -> SHA-256 of the original. */
const originals: Record<string, string> = {}

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

async function probe(page: Page, request: Omit<ProbeRequest, 'kits'>): Promise<ProbeResult> {
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

test.beforeAll(async () => {
  test.setTimeout(120_000)
  temp = mkdtempSync(join(tmpdir(), 'vault-e2e-page-remote-'))
  testPage = join(temp, 'vault-recovery.html')
  writeFileSync(testPage, await buildTestPage())
  service = await startService({
    dataDir: join(temp, 'service'),
    port: 0,
    clock: () => new Date(now),
    rateLimits: false,
    tickIntervalMs: 3_600_000,
    recoveryPage: testPage,
  })
  const { accountId, apiKey } = await service.admin.createAccount({ email: 'grandma@example.com' })
  ;({ vaultId } = await service.admin.createVault({ account: accountId, preset: 'standard' }))
  await service.admin.addCredits({ account: accountId, credits: 1000 })
  const vaultKey = generateVaultKey()
  kits = (await splitVaultKey(vaultKey, vaultId, SSS_PRESET_SHAPE.standard)).map(encodeShareWords)

  network = await startLocalArweave('e2e-page-remote-')
  store = await openArweaveBlobStore({
    gateway: network.gateway,
    walletFile: network.walletFile,
    cacheDir: join(temp, 'arweave-cache'),
  })
  const files: [string, Uint8Array][] = [
    ['letters/will.txt', Buffer.from('The house to Ana, the books to Ben.\n')],
    ['photos/wedding.jpg', randomBytes(1_500_000)],
  ]
  for (const [path, plain] of files) {
    originals[path] = sha256(plain)
    const blob = await collectBytes(
      encryptStream([plain], { vaultKey, vaultId, identity: { path, size: plain.length } }),
    )
    const form = new FormData()
    form.append('filename', `${path.split('/').pop()}.vault`)
    form.append('file', new Blob([Buffer.from(blob)]), 'blob.bin')
    const uploaded = await fetch(`${service.url}/api/vault/${vaultId}/asset`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey },
      body: form,
    })
    expect(uploaded.status).toBe(201)
    // The same blobs on the permanent store, tagged as the service's Arweave store tags them.
    const stored = join(store.newTempPath())
    writeFileSync(stored, blob)
    await store.put(stored, {
      sha256Hex: sha256(blob),
      size: blob.length,
      labels: { vaultId, assetId: path },
    })
  }
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
  token = /(hk_[A-Za-z0-9_-]{43})/.exec(mail.body)![1]!
  // The e-mail names the page this service serves, with its SHA-256.
  expect(mail.body).toContain(`${service.url}/recover`)
  expect(mail.body).toContain(sha256(readFileSync(testPage)))
})

test.afterAll(async () => {
  await service?.close()
  await network?.stop()
  if (temp) rmSync(temp, { recursive: true, force: true })
})

test('opened at the service’s /recover: recovers with the access code and two kits, and reaches nothing else', async ({
  page,
}) => {
  const violations = policyViolations(page)
  const response = await page.goto(`${service.url}/recover`)
  expect(response!.headers()['x-content-sha256']).toBe(sha256(readFileSync(testPage)))
  expect(response!.headers()['content-security-policy']).toContain("connect-src 'self'")
  const result = await probe(page, { kind: 'service', serviceUrl: service.url, accessToken: token })
  expect(result).toEqual({ ok: true, labels: expect.any(Array), files: originals })
  expect(violations).toEqual([])
  // Served by the service, the page may talk to that service only: a gateway is out of its reach.
  const elsewhere = await probe(page, { kind: 'arweave', gatewayUrl: network.gateway })
  expect(elsewhere).toMatchObject({ ok: false, code: 'UNREACHABLE' })
  expect(violations.join('\n')).toContain('connect-src')
})

test('a copy opened from file:// recovers from the service (CORS for Origin null) and from arlocal', async ({
  page,
}) => {
  const violations = policyViolations(page)
  await page.goto(pathToFileURL(testPage).href)
  await expect(page.getByText('ready')).toBeVisible()
  const fromService = await probe(page, { kind: 'service', serviceUrl: service.url, accessToken: token })
  expect(fromService).toEqual({ ok: true, labels: expect.any(Array), files: originals })
  const fromArweave = await probe(page, { kind: 'arweave', gatewayUrl: network.gateway })
  expect(fromArweave).toEqual({ ok: true, labels: expect.any(Array), files: originals })
  expect((fromArweave as { labels: string[] }).labels.every((l) => /^arweave:[\w-]{43}$/.test(l))).toBe(true)
  // A wrong code is told as the service's refusal, not as a network failure: the 401 carries CORS too.
  const refused = await probe(page, {
    kind: 'service',
    serviceUrl: service.url,
    accessToken: `hk_${'A'.repeat(43)}`,
  })
  expect(refused).toMatchObject({ ok: false, code: 'ACCESS_REFUSED' })
  expect(violations).toEqual([])
})

test('the built recovery page, when there is one, is served with its SHA-256 and loads under its policy', async ({
  page,
}) => {
  test.skip(!existsSync(BUILT_PAGE), 'no built page (node scripts/build-recovery-page.mjs)')
  const built = await startService({
    dataDir: join(temp, 'service-built'),
    port: 0,
    rateLimits: false,
    tickIntervalMs: 3_600_000,
    recoveryPage: BUILT_PAGE,
  })
  try {
    const violations = policyViolations(page)
    const errors: string[] = []
    page.on('pageerror', (error) => errors.push(error.message))
    const response = await page.goto(`${built.url}/recover`)
    expect(response!.status()).toBe(200)
    const html = readFileSync(BUILT_PAGE)
    expect(response!.headers()['x-content-sha256']).toBe(sha256(html))
    const recorded = `${BUILT_PAGE}.sha256`
    if (existsSync(recorded)) expect(readFileSync(recorded, 'utf8')).toContain(sha256(html))
    await page.waitForLoadState('load')
    expect(violations).toEqual([])
    expect(errors).toEqual([])
    await page.screenshot({ path: 'test-results/screenshots/recovery-page-served.png', fullPage: true })
  } finally {
    await built.close()
  }
})
