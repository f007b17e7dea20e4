// The real desktop app through Playwright's Electron driver. Runs only where the Electron binary exists.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, test } from '@playwright/test'
import { electronBinary, launchDesktopApp, SKIP_REASON } from '../support/electron-app'

test.skip(!electronBinary, SKIP_REASON)

test('the desktop window loads the shell with the sandboxed bridge', async () => {
  const userDataDir = await mkdtemp(join(tmpdir(), 'vault-electron-'))
  const app = await launchDesktopApp(userDataDir)
  try {
    const window = await app.firstWindow()
    // A fresh user-data folder: the app opens on the first-run choice.
    await expect(window.getByRole('heading', { name: 'Set up Vault Desktop', level: 1 })).toBeVisible()
    const exposure = await window.evaluate(() => ({
      vault: typeof (window as unknown as { vault?: unknown }).vault,
      require: typeof (window as unknown as { require?: unknown }).require,
      process: typeof (window as unknown as { process?: unknown }).process,
    }))
    expect(exposure).toEqual({ vault: 'object', require: 'undefined', process: 'undefined' })
    await window.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Settings' }).click()
    await expect(window.getByTestId('secret-store')).toBeVisible()
    await window.screenshot({ path: 'test-results/screenshots/electron-settings.png' })
  } finally {
    await app.close()
    await rm(userDataDir, { recursive: true, force: true })
  }
})
