// Checks that the shell harness catches real breakage: breaks the Electron glue one way at a time in a
// scratch copy of the checkout, rebuilds, runs test/shell, and reports which mutations it caught.
// Run by hand (a few minutes): node test/shell/glue-mutations.mjs
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..', '..')

/** [what breaks, file, text to find, replacement] */
const MUTATIONS = [
  [
    'closing the window quits instead of hiding to the tray',
    'src/main/electron/index.ts',
    'event.preventDefault()\n      window.hide()',
    'window.hide()',
  ],
  [
    'a second launch no longer brings the window back',
    'src/main/electron/index.ts',
    "app.on('second-instance', () => showMainWindow())",
    "app.on('second-instance', () => {})",
  ],
  [
    'the single-instance lock is ignored',
    'src/main/electron/index.ts',
    'if (!app.requestSingleInstanceLock()) {',
    'if (!app.requestSingleInstanceLock() && false) {',
  ],
  ['the window is not sandboxed', 'src/main/electron/window-options.ts', 'sandbox: true', 'sandbox: false'],
  [
    'the window is not context-isolated',
    'src/main/electron/window-options.ts',
    'contextIsolation: true',
    'contextIsolation: false',
  ],
  [
    'IPC refusals are not enforced',
    'src/main/electron/ipc-main-wiring.ts',
    'if (refusal) {',
    'if (refusal && false) {',
  ],
  [
    'IPC trusts any page of the app scheme',
    'src/main/electron/trusted-renderer.ts',
    'frame.protocol === app.protocol && frame.host === app.host',
    'frame.protocol === app.protocol || frame.protocol === "file:"',
  ],
  [
    'main’s events never reach the page',
    'src/main/electron/ipc-main-wiring.ts',
    'target.send(channel, payload)',
    'void payload',
  ],
  [
    'a notification click shows the window but not the vault',
    'src/main/electron/index.ts',
    'notice.vaultId ? openVault(notice.vaultId) : showMainWindow()',
    'showMainWindow()',
  ],
  [
    'waking from sleep does not re-check reminders',
    'src/main/electron/index.ts',
    "powerMonitor.on('resume', () => void running.onResume())",
    '',
  ],
  [
    'the tray check-in checks in the wrong vault',
    'src/main/electron/tray-menu.ts',
    'actions.checkIn(next.vaultId, next.label)',
    'actions.checkIn(next.label, next.label)',
  ],
  [
    'clicking the tray icon does nothing',
    'src/main/electron/tray.ts',
    "this.#tray.on('click', () => actions.open())",
    '',
  ],
  [
    'the tray has no Quit',
    'src/main/electron/tray.ts',
    "{ label: 'Quit', click: () => this.#actions.quit() },",
    '',
  ],
  [
    'quitting does not stop the backend first',
    'src/main/electron/index.ts',
    'void vaultApp.close().finally(',
    'void Promise.resolve().finally(',
  ],
  [
    'the PDF is never written',
    'src/main/electron/shell-capabilities.ts',
    'await writeFile(target.filePath, pdf, { mode: 0o600 })',
    '',
  ],
  [
    'the PDF is readable by everyone',
    'src/main/electron/shell-capabilities.ts',
    '{ mode: 0o600 }',
    '{ mode: 0o644 }',
  ],
  [
    'kits are printed with JavaScript on',
    'src/main/electron/shell-capabilities.ts',
    'javascript: false',
    'javascript: true',
  ],
  [
    'the app:// scheme is not registered before ready',
    'src/main/electron/index.ts',
    'registerAppScheme()\n',
    '',
  ],
  [
    'app:// serves the wrong folder',
    'src/main/electron/index.ts',
    "serveAppProtocol(join(here, '../renderer'))",
    "serveAppProtocol(join(here, '../preload'))",
  ],
  [
    'permissions are not denied',
    'src/main/electron/index.ts',
    'denyAllPermissions(session.defaultSession)\n',
    '',
  ],
  [
    'dropped files give their name, not their path',
    'src/preload/index.ts',
    'webUtils.getPathForFile(file)',
    'file.name',
  ],
  [
    'the preload exposes ipcRenderer itself',
    'src/preload/index.ts',
    "contextBridge.exposeInMainWorld('vault', vault)",
    "contextBridge.exposeInMainWorld('vault', vault)\ncontextBridge.exposeInMainWorld('ipc', ipcRenderer)",
  ],
  [
    'the preload needs a Node module a sandbox cannot give',
    'src/preload/index.ts',
    "import { contextBridge, ipcRenderer, webUtils } from 'electron'",
    "import { contextBridge, ipcRenderer, webUtils } from 'electron'\nimport { homedir } from 'node:os'\nconsole.log(homedir())",
  ],
]

function run(cwd, command, args) {
  return spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, FORCE_COLOR: '0' } })
}

const scratch = mkdtempSync(join(tmpdir(), 'glue-mutations-'))
for (const entry of [
  'src',
  'scripts',
  'test',
  'resources',
  'package.json',
  'electron.vite.config.ts',
  'tsconfig.json',
  'tsconfig.base.json',
  'tsconfig.e2e.json',
  'tsconfig.node.json',
  'tsconfig.web.json',
  'vitest.config.ts',
]) {
  cpSync(join(root, entry), join(scratch, entry), { recursive: true })
}
symlinkSync(join(root, 'node_modules'), join(scratch, 'node_modules'))

const results = []
try {
  for (const [what, file, find, replace] of [
    ['(none: the unchanged glue must pass)', '', '', ''],
    ...MUTATIONS,
  ]) {
    const path = join(scratch, file)
    const original = file ? readFileSync(path, 'utf8') : ''
    if (file && !original.includes(find)) {
      results.push({ what, outcome: 'NOT APPLIED (text not found: update this script)' })
      continue
    }
    if (file) writeFileSync(path, original.replace(find, replace))
    const build = run(scratch, process.execPath, ['node_modules/electron-vite/bin/electron-vite.js', 'build'])
    let outcome
    if (build.status !== 0) outcome = 'caught (the build failed)'
    else {
      const report = join(scratch, 'vitest-report.json')
      const test = run(scratch, process.execPath, [
        'node_modules/vitest/vitest.mjs',
        'run',
        'test/shell',
        '--reporter=json',
        `--outputFile=${report}`,
      ])
      const failed = existsSync(report)
        ? JSON.parse(readFileSync(report, 'utf8'))
            .testResults.flatMap((suite) => suite.assertionResults)
            .filter((result) => result.status === 'failed')
            .map((result) => result.title)
        : []
      if (!file)
        outcome = test.status === 0 ? 'passes' : `FAILS: ${failed.join('; ')}\n${test.stdout.slice(-3000)}`
      else outcome = test.status === 0 ? 'MISSED' : `caught by: ${failed.join('; ') || 'the run failing'}`
    }
    results.push({ what, outcome })
    console.log(`${what}: ${outcome}`)
    if (file) writeFileSync(path, original)
  }
} finally {
  if (existsSync(scratch)) rmSync(scratch, { recursive: true, force: true })
}

const missed = results.filter((r) => !r.outcome.startsWith('caught') && r.outcome !== 'passes')
console.log(`\n${results.length - 1} mutations, ${missed.length} not caught (or the baseline failed).`)
process.exit(missed.length === 0 ? 0 : 1)
