// Playwright fixtures for the browser-mode journeys: a test names what it needs (a backend, a page
// that must log no error, a vault made on first run) and gets it built for it, so any single test
// runs alone (`--grep`) and none reads what an earlier test left in a module-level variable.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Browser, test as base, expect, type Page } from '@playwright/test'
import { type BrowserModeApp, type BrowserModeOptions, startBrowserModeApp } from './browser-mode-app'
import { saveAndConfirmOwnerKit } from './owner-kit-steps'
import { collectPageErrors, startLocally } from './page-steps'

/** A vault made by the first run's "Start locally", on a backend of the test's own. */
export interface LocalVault {
  app: BrowserModeApp
  /** The vault's name as its heading shows it ("Vault …"). */
  label: string
}

export interface JourneyFixtures {
  /** How the file's backends start (`test.use({ appOptions: … })`); default: memory secret store. */
  appOptions: BrowserModeOptions
  /**
   * The file's backend: started for the first test that asks and kept for the file's later tests
   * (one backend per file, as a start costs seconds). Use it where a test needs no state of its own.
   */
  app: BrowserModeApp
  /** A backend of this test's own: a first run, or a test that changes what the whole app shares. */
  ownApp: BrowserModeApp
  /** Whether a test fails after it when its page logged an error (`test.use({ failOnPageErrors: true })`). */
  failOnPageErrors: boolean
  /** What the test's page logs as an error or throws, collected from its start. */
  pageErrors: string[]
  /** The page open on `ownApp`'s first run, after "Start locally" made the vault. */
  localVault: LocalVault
  /** `localVault` with its owner kit saved and confirmed (uploads wait for it), back on the Overview. */
  ownerKitSaved: LocalVault
  /** An empty folder for the test's files, removed after it. */
  workDir: string
}

interface WorkerFixtures {
  fileBackends: FileBackends
}

/**
 * One backend per spec file within a worker. Playwright gives a worker several files in a row and
 * keeps worker fixtures across them, so the backend is keyed by file (and options): a new file
 * stops the previous file's backend and starts its own.
 */
class FileBackends {
  private current: { key: string; app: BrowserModeApp } | undefined

  async for(file: string, options: BrowserModeOptions): Promise<BrowserModeApp> {
    const key = `${file}\n${JSON.stringify(options)}`
    if (this.current?.key === key) return this.current.app
    await this.stop()
    const app = await startBrowserModeApp(options)
    this.current = { key, app }
    return app
  }

  async stop(): Promise<void> {
    const running = this.current
    this.current = undefined
    await running?.app.stop()
  }
}

/**
 * A restart: stops `app` keeping its user-data folder, starts the app again on that folder and opens a
 * page on it. The caller stops the new app (which removes the folder) and closes the page.
 */
export async function startAgain(
  app: BrowserModeApp,
  browser: Browser,
  options: BrowserModeOptions & { viewport: { width: number; height: number } },
): Promise<{ app: BrowserModeApp; page: Page }> {
  const { viewport, ...appOptions } = options
  await app.stop({ keepData: true })
  const again = await startBrowserModeApp({ ...appOptions, userDataDir: app.userDataDir })
  const page = await browser.newPage({ viewport })
  await page.goto(again.url)
  return { app: again, page }
}

export const test = base.extend<JourneyFixtures, WorkerFixtures>({
  appOptions: [{}, { option: true }],
  failOnPageErrors: [false, { option: true }],
  fileBackends: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's needs from this pattern
    async ({}, use) => {
      const backends = new FileBackends()
      await use(backends)
      await backends.stop()
    },
    { scope: 'worker' },
  ],
  app: async ({ fileBackends, appOptions }, use, testInfo) => {
    await use(await fileBackends.for(testInfo.file, appOptions))
  },
  ownApp: async ({ appOptions }, use) => {
    const app = await startBrowserModeApp(appOptions)
    await use(app)
    await app.stop()
  },
  pageErrors: [
    async ({ page, failOnPageErrors }, use) => {
      const errors: string[] = []
      collectPageErrors(page, errors)
      await use(errors)
      if (failOnPageErrors) expect(errors, 'errors the page logged during the test').toEqual([])
    },
    { auto: true },
  ],
  localVault: async ({ ownApp, page }, use) => {
    await page.goto(ownApp.url)
    await startLocally(page)
    const label = (await page.getByRole('heading', { level: 1 }).textContent())!.trim()
    await use({ app: ownApp, label })
  },
  ownerKitSaved: async ({ localVault, page }, use) => {
    await saveAndConfirmOwnerKit(page)
    await use(localVault)
  },
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's needs from this pattern
  workDir: async ({}, use) => {
    const dir = await mkdtemp(join(tmpdir(), 'vault-e2e-files-'))
    await use(dir)
    await rm(dir, { recursive: true, force: true })
  },
})

export { expect }
