import { defineConfig } from '@playwright/test'

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

export default defineConfig({
  testDir: 'test/e2e',
  outputDir: 'test-results/playwright',
  timeout: 60_000,
  workers: 1,
  reporter: [['list']],
  projects: [
    {
      name: 'browser-mode',
      testMatch: /.*\.spec\.ts$/,
      testIgnore: /electron\/.*/,
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
    { name: 'electron', testMatch: /electron\/.*\.spec\.ts$/ },
  ],
})
