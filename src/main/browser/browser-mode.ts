// Entry point of browser mode (`npm start` without the Electron binary, and end-to-end tests): the
// second shell beside Electron's. The core's facade (../core/vault-app.ts) behind the loopback bridge,
// printing the URL to open.

import { join } from 'node:path'
import { parseArgs } from 'node:util'
import packageJson from '../../../package.json'
import { eventChannels } from '../../shared/ipc/contract'
import { processLocale } from '../../shared/locale-format'
import { setDesktopLocale } from '../core/desktop-text'
import { defaultUserDataDir } from '../core/storage/user-data-dir'
import { createVaultApp } from '../core/vault-app'
import { LocalServiceHost } from '../local-service-host'
import { startBrowserBridge } from './bridge-server'
import { DropIntake, keepDroppedFilesFor } from './drop-intake'

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    'user-data': { type: 'string' },
    renderer: { type: 'string', default: 'out/renderer' },
    token: { type: 'string' },
    /** "memory" skips the OS keychain (tests); by default the keychain is tried first. */
    'secret-store': { type: 'string', default: 'auto' },
  },
})

const port = Number(values.port)
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`--port must be a number from 0 to 65535, got "${values.port}".`)
  process.exit(2)
}

// Notices the core raises speak the system's language, as Electron's shell does with app.getLocale().
setDesktopLocale(processLocale())

const userDataDir = values['user-data'] ?? defaultUserDataDir()
// The page cannot open a file with an app: a decrypted file is offered to it as a download instead.
let offerDownload: ((path: string, name: string) => string) | undefined
const vaultApp = createVaultApp({
  userDataDir,
  mode: 'browser',
  shell: {
    openFile: {
      kind: 'download',
      offer: (path, name) => {
        if (!offerDownload) throw new Error('The page is not being served yet.')
        return offerDownload(path, name)
      },
    },
  },
  version: packageJson.version,
  useKeychain: values['secret-store'] !== 'memory',
  localService: (dir) => LocalServiceHost.open(dir),
})
await vaultApp.start()
// A page has no paths: dropped files stream into this folder and are deleted once uploaded.
const dropped = keepDroppedFilesFor(
  new DropIntake(join(userDataDir, 'dropped')),
  { list: () => vaultApp.uploads() },
  (listener) => vaultApp.on('upload-item', listener),
)
await dropped.sweep()
vaultApp.events.subscribe((channel) => {
  if (channel === eventChannels.uploadsCleared.name) void dropped.sweep()
})

const bridge = await startBrowserBridge({
  rendererDir: values.renderer,
  handlers: vaultApp.handlers,
  events: vaultApp.events,
  port,
  token: values.token,
  intake: { intake: dropped.intake, needed: dropped.needed },
})
offerDownload = bridge.offerDownload
console.log(`Vault Desktop (browser mode) is ready: ${bridge.url}`)

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void bridge
      .close()
      .then(() => vaultApp.close())
      .then(() => process.exit(0))
  })
}
