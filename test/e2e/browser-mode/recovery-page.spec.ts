// Issue 29, point 1: the heir's recovery page, opened from file:// with nothing installed, recovers a
// vault's files from local .vault files (chosen files, or the encrypted export's folder) with two of
// three guardians' kits, byte for byte, and says what the recovery tool says (recovered, damaged,
// missing, older copies left out). Playwright cannot drive the native folder picker, so an init script
// stands in for window.showDirectoryPicker with a folder whose writables forward every chunk to Node
// (a real file on disk, written through a swap file and renamed on close, as Chromium does): that
// runs the page's own streaming writer, which is how a 1 GB file is recovered while the page's heap
// is sampled and stays flat. A bad kit gets the app's message; a phone-sized, Spanish journey too.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { createReadStream, createWriteStream, existsSync } from 'node:fs'
import {
  appendFile,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rename,
  rm,
  rmdir,
  stat,
  writeFile,
} from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { pathToFileURL } from 'node:url'
import { type BrowserContext, test as base, chromium, expect, type Page } from '@playwright/test'
import { PNG } from 'pngjs'
import QRCode from 'qrcode'
import { CHROMIUM_PATH } from '../../../playwright.config'
import { cipherByName } from '../../../src/node-cipher'
import { SSS_PRESET_SHAPE } from '../../../src/shared/api'
import {
  encodeOwnerKitWords,
  encodeShareWords,
  encryptManifest,
  encryptStream,
  generateVaultKey,
  splitVaultKey,
} from '../../../src/vault-format'

const ROOT = resolve(import.meta.dirname, '../../..')
const PAGE = join(ROOT, 'out/recovery-page/vault-recovery.html')
const vaultId = 'vault-recovery-page-e2e'
const vaultKey = generateVaultKey()
const writtenAt = Date.parse('2026-11-20T10:00:00Z')
const files: Record<string, Buffer> = {
  'will.txt': Buffer.from('My last will, signed and witnessed.\n'.repeat(400)),
  'photos/house.jpg': Buffer.from(Array.from({ length: 3_000_000 }, (_, i) => (i * 7919) & 0xff)),
  'Letters/Für María.txt': Buffer.from('Querida María,\n'.repeat(50)),
  'empty.txt': Buffer.alloc(0),
}
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')
const shot = (page: Page, name: string) =>
  page.screenshot({ path: `test-results/screenshots/${name}.png`, fullPage: true })

async function encryptTo(path: string, rel: string, bytes: Buffer): Promise<void> {
  const out = encryptStream([bytes], {
    vaultKey,
    vaultId,
    identity: { path: rel, size: bytes.length, writtenAtMs: writtenAt },
    ...cipherByName('node'),
  })
  await pipeline(out, createWriteStream(path))
}

/** The page built and a sealed vault's encrypted export with its three guardians' kits (read only). */
interface SealedExport {
  /** The export's folder: encrypted-files/*.vault, the manifest, and a README left alone. */
  exportDir: string
  kits: string[]
}

const test = base.extend<{ workDir: string }, { sealed: SealedExport }>({
  // Built once per worker: the tests only read it, each writes below its own workDir.
  sealed: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's needs from this pattern
    async ({}, use) => {
      // The page as npm test builds it (esbuild takes a second).
      const built = spawnSync(process.execPath, [join(ROOT, 'scripts/build-recovery-page.mjs')], {
        encoding: 'utf8',
      })
      expect(built.status, built.stderr).toBe(0)
      expect(built.stdout).toMatch(/SHA-256: [0-9a-f]{64}/)
      const work = await mkdtemp(join(tmpdir(), 'vault-e2e-recovery-page-'))
      // The encrypted export's shape: a folder with encrypted-files/*.vault (names say nothing).
      const exportDir = join(work, 'Vault export')
      await mkdir(join(exportDir, 'encrypted-files'), { recursive: true })
      let n = 0
      for (const [rel, bytes] of Object.entries(files))
        await encryptTo(join(exportDir, 'encrypted-files', `f${++n}.vault`), rel, bytes)
      const manifest = await encryptManifest(
        {
          sequence: 3,
          writtenAtMs: writtenAt + 1000,
          entries: Object.entries(files)
            .map(([path, bytes]) => ({
              path,
              size: bytes.length,
              sha256: sha256(bytes),
              writtenAtMs: writtenAt,
            }))
            .sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path))),
        },
        { vaultKey, vaultId },
      )
      await writeFile(join(exportDir, 'encrypted-files', 'manifest.vault'), manifest)
      await writeFile(join(exportDir, 'README.txt'), 'Not a .vault file: left alone.')
      const shares = await splitVaultKey(vaultKey, vaultId, SSS_PRESET_SHAPE.standard)
      const kits = shares.map((share) => encodeShareWords(share))
      await use({ exportDir, kits })
      await rm(work, { recursive: true, force: true })
    },
    { scope: 'worker' },
  ],
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's needs from this pattern
  workDir: async ({}, use) => {
    const dir = await mkdtemp(join(tmpdir(), 'vault-e2e-recovery-page-'))
    await use(dir)
    await rm(dir, { recursive: true, force: true })
  },
})

/**
 * window.showDirectoryPicker answers with a folder below `outDir` on this computer: each call of the
 * page's writables reaches Node (exposeFunction), which writes a swap file and renames it on close().
 */
async function fakeFolderPicker(context: BrowserContext, page: Page, outDir: string): Promise<void> {
  const inside = (path: string) => {
    const target = resolve(outDir, path)
    if (!target.startsWith(`${outDir}/`) && target !== outDir) throw new Error(`outside the folder: ${path}`)
    return target
  }
  await page.exposeFunction('__folderOp', async (op: string, path: string, data?: string) => {
    const target = inside(path)
    switch (op) {
      case 'mkdir':
        await mkdir(target, { recursive: true })
        return true
      case 'exists':
        return existsSync(target)
      case 'create':
        if (!existsSync(target)) await writeFile(target, '')
        return true
      case 'open':
        await writeFile(`${target}.crswap`, '')
        return true
      case 'write':
        await appendFile(`${target}.crswap`, Buffer.from(data ?? '', 'base64'))
        return true
      case 'close':
        await rename(`${target}.crswap`, target)
        return true
      case 'abort':
        await rm(`${target}.crswap`, { force: true })
        return true
      case 'remove':
        // As removeEntry without `recursive`: a folder only when empty.
        if (existsSync(target) && (await stat(target)).isDirectory()) await rmdir(target)
        else await rm(target, { force: true })
        return true
    }
    throw new Error(`unknown op ${op}`)
  })
  await context.addInitScript(() => {
    type Op = (op: string, path: string, data?: string) => Promise<boolean>
    // With __discardWrites set, the folder keeps nothing and Node is not asked: the page's own pace.
    const call: Op = async (op, path, data) =>
      (window as unknown as { __discardWrites?: boolean }).__discardWrites
        ? op !== 'exists'
        : (window as unknown as { __folderOp: Op }).__folderOp(op, path, data)
    const join = (a: string, b: string) => (a ? `${a}/${b}` : b)
    const base64 = (bytes: Uint8Array) => {
      let text = ''
      for (let i = 0; i < bytes.length; i += 0x8000)
        text += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000) as unknown as number[])
      return btoa(text)
    }
    const folder = (path: string, name: string): unknown => ({
      kind: 'directory',
      name,
      async getDirectoryHandle(child: string, options?: { create?: boolean }) {
        if (!options?.create && !(await call('exists', join(path, child))))
          throw new DOMException('none', 'NotFoundError')
        await call('mkdir', join(path, child))
        return folder(join(path, child), child)
      },
      async getFileHandle(child: string, options?: { create?: boolean }) {
        const at = join(path, child)
        if (!(await call('exists', at))) {
          if (!options?.create) throw new DOMException('none', 'NotFoundError')
          await call('create', at)
        }
        return {
          kind: 'file',
          name: child,
          async createWritable() {
            await call('open', at)
            return {
              write: async (data: Uint8Array) => {
                await call('write', at, base64(data))
              },
              close: async () => {
                await call('close', at)
              },
              abort: async () => {
                await call('abort', at)
              },
            }
          },
        }
      },
      async removeEntry(child: string) {
        await call('remove', join(path, child))
      },
    })
    ;(window as unknown as { showDirectoryPicker: unknown }).showDirectoryPicker = async () =>
      folder('', 'Recovered')
  })
}

async function openPage(context: BrowserContext, outDir: string): Promise<Page> {
  const page = await context.newPage()
  const problems: string[] = []
  page.on('pageerror', (error) => problems.push(error.message))
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text())
  })
  await fakeFolderPicker(context, page, outDir)
  await page.goto(pathToFileURL(PAGE).href)
  await expect(page.locator('body[data-ready="true"]')).toBeAttached()
  ;(page as unknown as { problems: string[] }).problems = problems
  return page
}

async function typeKit(page: Page, n: number, words: string): Promise<void> {
  const box = page.getByLabel(`Kit ${n}`, { exact: true })
  if (!(await box.count()))
    await page.getByRole('button', { name: /Add another kit|Añadir otro kit/ }).click()
  await page.getByLabel(`Kit ${n}`, { exact: true }).fill(words)
  await page.getByLabel(`Kit ${n}`, { exact: true }).blur()
}

async function expectRecovered(outDir: string): Promise<void> {
  for (const [rel, bytes] of Object.entries(files)) {
    const got = await readFile(join(outDir, rel))
    expect(sha256(got), rel).toBe(sha256(bytes))
  }
  // Nothing else: no swap files, no manifest, no README.
  const all = (await readdir(outDir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile())
  expect(all.map((e) => join(e.parentPath, e.name).slice(outDir.length + 1)).sort()).toEqual(
    Object.keys(files).sort(),
  )
}

test('an heir with only the page recovers the export folder with two of three kits, byte for byte', async ({
  browser,
  sealed: { exportDir, kits },
  workDir,
}) => {
  const outDir = join(workDir, 'out-folder')
  await mkdir(outDir)
  const context = await browser.newContext({ locale: 'en-GB', viewport: { width: 1100, height: 900 } })
  const page = await openPage(context, outDir)
  await expect(page.getByRole('heading', { name: 'Vault recovery' })).toBeVisible()
  await page.locator('#pick-folder').setInputFiles(exportDir)
  await expect(page.locator('#files-chosen')).toHaveText(/5 encrypted files chosen/)

  await typeKit(page, 1, kits[0]!)
  await expect(page.getByText(/Kit 1 of 3, read correctly/)).toBeVisible()
  await expect(page.locator('#kits-summary')).toHaveText(/2 of 3 needed\. Ask one more guardian/)
  await typeKit(page, 2, kits[2]!.toUpperCase().replaceAll(' ', '   '))
  await expect(page.locator('#kits-summary')).toHaveText(
    '2 kits entered — enough to open the files (2 of 3 needed).',
  )
  await shot(page, 'recovery-page-kits')

  await page.getByRole('button', { name: 'Choose a folder and recover' }).click()
  await expect(page.locator('#report-summary')).toHaveText('All 4 files recovered and checked.', {
    timeout: 60_000,
  })
  await expect(page.locator('#report-counts')).toContainText(
    'Recovered: 4. Damaged: 0. Missing: 0. Older copies left out: 0.',
  )
  await expect(page.getByText(/Recovered by the vault’s newest list of files: number 3/)).toBeVisible()
  await expectRecovered(outDir)
  await shot(page, 'recovery-page-report')

  // Again into the same folder: nothing is replaced, and the report says so for each file.
  await page.getByRole('button', { name: 'Choose a folder and recover' }).click()
  await expect(page.locator('#results li[data-status="skipped"]')).toHaveCount(4, { timeout: 60_000 })
  await expectRecovered(outDir)
  expect((page as unknown as { problems: string[] }).problems).toEqual([])
  await context.close()
})

test('chosen files with a damaged copy and one missing: the report names them, and nothing is written for them', async ({
  browser,
  sealed: { exportDir, kits },
  workDir,
}) => {
  const outDir = join(workDir, 'out-damaged')
  await mkdir(outDir)
  const picked = join(workDir, 'picked')
  await mkdir(picked)
  const names = (await readdir(join(exportDir, 'encrypted-files'))).sort()
  // f1 (will.txt) damaged in its middle; f3 (the letter) left out.
  for (const name of names) {
    if (name === 'f3.vault') continue
    const bytes = await readFile(join(exportDir, 'encrypted-files', name))
    if (name === 'f2.vault') bytes[bytes.length >> 1]! ^= 0x40
    await writeFile(join(picked, name), bytes)
  }
  const context = await browser.newContext({ locale: 'en-US' })
  const page = await openPage(context, outDir)
  await page.locator('#pick-files').setInputFiles((await readdir(picked)).map((n) => join(picked, n)))
  await typeKit(page, 1, kits[1]!)
  await typeKit(page, 2, kits[0]!)
  // One more dropped on the page: a second copy of the will (same content and date): one is left out.
  const again = (await readFile(join(picked, 'f1.vault'))).toString('base64')
  await page.evaluate((bytes) => {
    const transfer = new DataTransfer()
    const raw = Uint8Array.from(atob(bytes), (c) => c.charCodeAt(0))
    transfer.items.add(new File([raw], 'copy of f1.vault'))
    document
      .querySelector('.drop')!
      .dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }))
  }, again)
  await expect(page.locator('#files-chosen')).toHaveText(/5 encrypted files chosen/)
  await page.getByRole('button', { name: 'Choose a folder and recover' }).click()
  await expect(page.locator('#report-summary')).toHaveText('2 of 4 files recovered.', { timeout: 60_000 })
  await expect(page.locator('#report-counts')).toContainText(
    'Recovered: 2. Damaged: 1. Missing: 1. Older copies left out: 1.',
  )
  await expect(page.locator('#results li[data-status="superseded"]')).toContainText('will.txt')
  await expect(page.locator('#results li[data-status="damaged"]')).toContainText('photos/house.jpg')
  await expect(page.locator('#results li[data-status="missing"]')).toContainText('Letters/Für María.txt')
  // Nothing of it: not the file, not its swap file, not the folder made for it.
  expect(existsSync(join(outDir, 'photos'))).toBe(false)
  expect(await readFile(join(outDir, 'will.txt'))).toEqual(files['will.txt'])
  await shot(page, 'recovery-page-damaged')
  await context.close()
})

test('a bad kit gets the app’s message; the owner’s kit opens the files alone', async ({
  browser,
  sealed: { exportDir, kits },
  workDir,
}) => {
  const outDir = join(workDir, 'out-owner')
  await mkdir(outDir)
  const context = await browser.newContext({ locale: 'en-US' })
  const page = await openPage(context, outDir)
  const words = kits[0]!.split(' ')
  words[4] = 'zzzzq'
  await typeKit(page, 1, words.join(' '))
  const problem = page.getByRole('alert').filter({ hasText: 'This kit could not be read.' })
  await expect(problem).toBeVisible()
  await expect(problem).toContainText(/word 5/i)
  await page.locator('#pick-folder').setInputFiles(exportDir)
  await page.getByRole('button', { name: 'Choose a folder and recover' }).click()
  await expect(page.locator('#error')).toHaveText('Enter enough guardians’ kits first (step 2).')
  await shot(page, 'recovery-page-bad-kit')

  // The owner's kit read from a photo of its QR code (a PNG, as a phone's camera or a scanner gives).
  const photo = join(workDir, 'owner-kit.png')
  await writeFile(
    photo,
    await QRCode.toBuffer(encodeOwnerKitWords({ vaultKey, vaultId }), { type: 'png', scale: 6 }),
  )
  const notPhoto = join(workDir, 'not-a-photo.png')
  await writeFile(notPhoto, 'not an image')
  await page.getByLabel('Barcode from a photo… (Kit 1)').setInputFiles(notPhoto)
  await expect(
    page.getByRole('alert').filter({ hasText: '“not-a-photo.png” is not an image this page can read.' }),
  ).toBeVisible()
  await page.getByLabel('Barcode from a photo… (Kit 1)').setInputFiles(photo)
  await expect(page.locator('#kits-summary')).toContainText('The owner’s recovery kit, read correctly')
  await page.getByRole('button', { name: 'Choose a folder and recover' }).click()
  await expect(page.locator('#report-summary')).toHaveText('All 4 files recovered and checked.', {
    timeout: 60_000,
  })
  await expectRecovered(outDir)
  await context.close()
})

test('on a phone (360×740), in Spanish, without the folder API: per-file downloads', async ({
  browser,
  sealed: { exportDir, kits },
}) => {
  const context = await browser.newContext({
    locale: 'es-ES',
    viewport: { width: 360, height: 740 },
    isMobile: true,
    hasTouch: true,
    acceptDownloads: true,
  })
  const page = await context.newPage()
  await page.goto(pathToFileURL(PAGE).href)
  await expect(page.getByRole('heading', { name: 'Recuperación de la bóveda' })).toBeVisible()
  // Chromium has the folder API: taken away, as on a phone's browser.
  await page.evaluate(() => {
    delete (window as unknown as { showDirectoryPicker?: unknown }).showDirectoryPicker
    ;(window as unknown as { showDirectoryPicker?: unknown }).showDirectoryPicker = undefined
  })
  await page.getByRole('button', { name: 'Show this page in English' }).click()
  await page.getByRole('button', { name: 'Ver esta página en español' }).click()
  await expect(page.getByText(/se guarda en memoria y se ofrece como descarga/)).toBeVisible()
  await page.locator('#pick-folder').setInputFiles(exportDir)
  await typeKit(page, 1, kits[2]!)
  await typeKit(page, 2, kits[1]!)
  await expect(page.locator('#kits-summary')).toContainText('suficientes para abrir los archivos')
  await shot(page, 'recovery-page-phone-es-kits')
  await page.getByRole('button', { name: 'Recuperar los archivos' }).click()
  await expect(page.locator('#report-summary')).toHaveText(
    'Los 4 archivos se recuperaron y se comprobaron.',
    { timeout: 60_000 },
  )
  // Every line fits the screen: nothing scrolls sideways.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360)
  const link = page
    .locator('#results li', { hasText: 'photos/house.jpg' })
    .getByRole('link', { name: 'Descargar' })
  const [download] = await Promise.all([page.waitForEvent('download'), link.click()])
  expect(download.suggestedFilename()).toBe('photos - house.jpg')
  expect(sha256(await readFile((await download.path())!))).toBe(sha256(files['photos/house.jpg']!))
  await shot(page, 'recovery-page-phone-es-report')
  await context.close()
})

/** A deterministic plaintext of `mib` MiB, streamed (never held whole), and its SHA-256. */
function bigPlaintext(mib: number): {
  chunks: () => AsyncGenerator<Uint8Array>
  sha256: () => Promise<string>
} {
  const block = createHash('sha512').update('seed').digest()
  const base = Buffer.alloc(1 << 20)
  for (let i = 0; i < base.length; i += block.length)
    block.copy(base, i, 0, Math.min(block.length, base.length - i))
  async function* chunks() {
    for (let i = 0; i < mib; i++) {
      const piece = Buffer.from(base)
      piece.writeUInt32BE(i, 0)
      piece.writeUInt32BE((i * 2654435761) >>> 0, 4096)
      yield piece
    }
  }
  return {
    chunks,
    sha256: async () => {
      const hash = createHash('sha256')
      for await (const piece of chunks()) hash.update(piece)
      return hash.digest('hex')
    },
  }
}

/** Renderer memory (RSS of Chromium's renderer processes) and the page's JS heap, sampled. */
async function sampleMemory(context: BrowserContext, page: Page) {
  const cdp = await context.newCDPSession(page)
  await cdp.send('Performance.enable')
  const browserCdp = await context.browser()!.newBrowserCDPSession()
  const peaks = { heap: 0, rss: 0, samples: 0 }
  let on = true
  const loop = (async () => {
    while (on) {
      const { metrics } = await cdp.send('Performance.getMetrics')
      const heap = metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0
      const info = (await browserCdp.send('SystemInfo.getProcessInfo')) as {
        processInfo: { type: string; id: number }[]
      }
      let rss = 0
      for (const p of info.processInfo.filter((p) => p.type === 'renderer')) {
        const status = await readFile(`/proc/${p.id}/status`, 'utf8').catch(() => '')
        const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0)
        rss = Math.max(rss, kb * 1024)
      }
      peaks.heap = Math.max(peaks.heap, heap)
      peaks.rss = Math.max(peaks.rss, rss)
      peaks.samples++
      await new Promise((r) => setTimeout(r, 250))
    }
  })()
  return {
    peaks,
    stop: async () => {
      on = false
      await loop
      await browserCdp.detach()
      await cdp.detach()
    },
  }
}

test('a 1 GB file is streamed to disk while the page’s memory stays flat; Stop leaves nothing half-written', async ({
  browser,
  sealed: { kits },
  workDir,
}) => {
  test.setTimeout(15 * 60_000)
  const mib = 1024
  const big = bigPlaintext(mib)
  const size = mib << 20
  const expected = await big.sha256()
  const source = join(workDir, 'big')
  await mkdir(source)
  await pipeline(
    encryptStream(big.chunks(), {
      vaultKey,
      vaultId,
      identity: { path: 'videos/wedding.mp4', size, writtenAtMs: writtenAt },
      ...cipherByName('node'),
    }),
    createWriteStream(join(source, 'big.vault')),
  )
  // With the vault's list naming it, so its SHA-256 is checked as the page writes it.
  await writeFile(
    join(source, 'manifest.vault'),
    await encryptManifest(
      {
        sequence: 1,
        writtenAtMs: writtenAt,
        entries: [{ path: 'videos/wedding.mp4', size, sha256: expected, writtenAtMs: writtenAt }],
      },
      { vaultKey, vaultId },
    ),
  )
  const outDir = join(workDir, 'out-big')
  await mkdir(outDir)
  const context = await browser.newContext({ locale: 'en-US' })
  const page = await openPage(context, outDir)
  await page.locator('#pick-files').setInputFiles([join(source, 'big.vault'), join(source, 'manifest.vault')])
  await typeKit(page, 1, kits[0]!)
  await typeKit(page, 2, kits[1]!)

  // Stopped part-way: the file being written is removed, swap file and name.
  await page.getByRole('button', { name: 'Choose a folder and recover' }).click()
  await expect
    .poll(async () => page.locator('#progress-bar').evaluate((bar: HTMLProgressElement) => bar.value), {
      timeout: 120_000,
    })
    .toBeGreaterThan(100 << 20)
  await page.getByRole('button', { name: 'Stop' }).click()
  await expect(page.locator('#error')).toContainText('The recovery was stopped.')
  expect(existsSync(join(outDir, 'videos'))).toBe(false)

  // Then the whole of it, sampled.
  const memory = await sampleMemory(context, page)
  const started = Date.now()
  await page.getByRole('button', { name: 'Choose a folder and recover' }).click()
  await expect(page.locator('#report-summary')).toHaveText('The file was recovered and checked.', {
    timeout: 14 * 60_000,
  })
  const seconds = (Date.now() - started) / 1000
  await memory.stop()
  const got = createHash('sha256')
  await pipeline(createReadStream(join(outDir, 'videos/wedding.mp4')), got)
  expect(got.digest('hex')).toBe(expected)
  expect((await stat(join(outDir, 'videos/wedding.mp4'))).size).toBe(size)
  const mbps = Number(await page.locator('#speed').getAttribute('data-mbps'))
  // The page's own pace: the same recovery into a folder that keeps nothing (no forwarding to Node).
  await page.evaluate(() => {
    ;(window as unknown as { __discardWrites: boolean }).__discardWrites = true
  })
  // The run above leaves its report up; a new run takes it down as it starts. Marked, so the wait
  // below is for this run's report, however long the page takes to start (a bar shown for a few
  // seconds is a race: once it missed a 5 s window after a 1 GiB run).
  await page.locator('#report-summary').evaluate((summary) => {
    summary.dataset.previousRun = 'true'
  })
  await page.getByRole('button', { name: 'Choose a folder and recover' }).click()
  await expect(page.locator('#report-summary[data-previous-run]')).toHaveCount(0, { timeout: 120_000 })
  await expect(page.locator('#report-summary')).toHaveText('The file was recovered and checked.', {
    timeout: 10 * 60_000,
  })
  const pageOnlyMBps = Number(await page.locator('#speed').getAttribute('data-mbps'))
  const figures = {
    pageMBps: mbps,
    pageWithoutForwardingMBps: pageOnlyMBps,
    wallMBps: size / 1e6 / seconds,
    heapPeakMB: memory.peaks.heap / 1e6,
    rendererRssPeakMB: memory.peaks.rss / 1e6,
    samples: memory.peaks.samples,
  }
  console.log(`recovery page, 1 GiB: ${JSON.stringify(figures)}`)
  test.info().annotations.push({ type: 'figures', description: JSON.stringify(figures) })
  expect(memory.peaks.samples).toBeGreaterThan(4)
  // Flat: the heap never holds more than a few batches, the renderer never a tenth of the file.
  expect(memory.peaks.heap).toBeLessThan(64e6)
  expect(memory.peaks.rss).toBeLessThan(400e6)
  await context.close()
})

/** A camera's video (YUV4MPEG2, as Chromium's fake camera reads it) showing `text` as a QR code. */
async function qrVideo(path: string, text: string): Promise<void> {
  const png = PNG.sync.read(await QRCode.toBuffer(text, { type: 'png', scale: 4, margin: 4 }))
  const width = 640
  const height = 480
  const luma = Buffer.alloc(width * height, 235)
  const left = (width - png.width) >> 1
  const top = (height - png.height) >> 1
  for (let y = 0; y < png.height; y++)
    for (let x = 0; x < png.width; x++) {
      const at = (y * png.width + x) * 4
      luma[(top + y) * width + left + x] = png.data[at]! < 128 ? 16 : 235
    }
  const chroma = Buffer.alloc((width / 2) * (height / 2), 128)
  const frame = Buffer.concat([Buffer.from('FRAME\n'), luma, chroma, chroma])
  await writeFile(
    path,
    Buffer.concat([
      Buffer.from(`YUV4MPEG2 W${width} H${height} F10:1 Ip A1:1 C420jpeg\n`),
      frame,
      frame,
      frame,
    ]),
  )
}

test('a kit shown to the camera is read', async ({ sealed: { kits }, workDir }) => {
  const video = join(workDir, 'kit.y4m')
  await qrVideo(video, kits[1]!)
  const camera = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--no-sandbox',
      '--use-fake-ui-for-media-stream',
      '--use-fake-device-for-media-stream',
      `--use-file-for-fake-video-capture=${video}`,
    ],
  })
  try {
    const page = await camera.newPage({ locale: 'en-US', viewport: { width: 360, height: 740 } })
    const problems: string[] = []
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text())
    })
    await page.goto(pathToFileURL(PAGE).href)
    await page.getByRole('button', { name: 'Barcode with the camera' }).click()
    await expect(page.getByText('Hold the kit’s barcode in front of the camera.')).toBeVisible()
    await expect(page.getByText(/Kit 2 of 3, read correctly/)).toBeVisible({ timeout: 20_000 })
    await expect(page.getByLabel('Kit 1', { exact: true })).toHaveValue(kits[1]!)
    // The camera is let go once the code is read.
    await expect(page.locator('video')).toHaveCount(0)
    expect(problems).toEqual([])
    await page.screenshot({ path: 'test-results/screenshots/recovery-page-camera.png', fullPage: true })
  } finally {
    await camera.close()
  }
})
