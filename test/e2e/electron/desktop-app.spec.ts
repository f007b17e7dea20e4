// The real desktop app through Playwright's Electron driver. Runs only where the Electron binary exists.
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { _electron as electron, expect, test } from '@playwright/test'
import { electronBinaryPath } from '../../../scripts/electron-binary.mjs'

const binary = electronBinaryPath()
if (!binary)
  console.log('skipped: Electron binary not installed (the desktop suite needs node_modules/electron/dist)')
test.skip(
  !binary,
  'skipped: Electron binary not installed (node_modules/electron/dist is missing; see scripts/electron-binary.mjs)',
)

test('the desktop window loads the shell with the sandboxed bridge', async () => {
  const userDataDir = await mkdtemp(join(tmpdir(), 'vault-electron-'))
  const app = await electron.launch({ executablePath: binary, args: ['.', `--user-data-dir=${userDataDir}`] })
  try {
    const window = await app.firstWindow()
    await expect(window.getByRole('heading', { name: 'Vaults', level: 1 })).toBeVisible()
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
  }
})
