import { defineConfig } from '@playwright/test'

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

// Each project owns one folder. Selecting specs with regexes over file paths went wrong when the
// checkout itself lived under a folder such as `electron/`: Playwright matches them against absolute
// paths, so one project took every spec and the other none. Shared helpers live in test/e2e/support.
export default defineConfig({
  outputDir: 'test-results/playwright',
  timeout: 60_000,
  workers: 1,
  reporter: [['list']],
  projects: [
    {
      name: 'browser-mode',
      testDir: 'test/e2e/browser-mode',
      use: {
        browserName: 'chromium',
        launchOptions: {
          executablePath: CHROMIUM_PATH,
          args: [
            '--no-sandbox',
            '--disable-gpu',
            '--disable-background-networking',
            '--disable-component-update',
            '--disable-sync',
            '--no-first-run',
          ],
        },
      },
    },
    // Launches the app itself through Playwright's Electron driver; no browser to configure.
    { name: 'electron', testDir: 'test/e2e/electron' },
  ],
})
