// scripts/native-modules.mjs decides from what each runtime reports, not from a record of the last
// rebuild: these check the decisions, and ask the Node here for real.
import { describe, expect, it } from 'vitest'
import {
  expectedAbi,
  makeNativeModulesLoadable,
  NATIVE_MODULES,
  type Probe,
  planNativeModules,
  probeNativeModules,
  REBUILDS,
} from '../../scripts/native-modules.mjs'

// The message Node's loader gives for an addon built for another runtime.
const abiError = (builtFor: string, needs: string) =>
  `The module '/x/node_modules/better-sqlite3/build/Release/better_sqlite3.node' was compiled against a different ` +
  `Node.js version using NODE_MODULE_VERSION ${builtFor}. This version of Node.js requires NODE_MODULE_VERSION ` +
  `${needs}. Please try re-compiling or re-installing the module (for instance, using \`npm rebuild\` or \`npm install\`).`

const loads = { loads: true }

describe('planNativeModules', () => {
  it('does nothing when the runtime loads every module', () => {
    const probe: Probe = {
      abi: '150',
      version: '45.4.1',
      modules: { 'better-sqlite3': loads, keytar: loads },
    }
    expect(planNativeModules({ target: 'electron', expectedAbi: '150', probe })).toEqual({ action: 'none' })
  })

  it('rebuilds with electron-builder when Electron meets modules built for Node', () => {
    const probe: Probe = {
      abi: '150',
      version: '45.4.1',
      modules: {
        'better-sqlite3': { loads: false, error: abiError('115', '150') },
        keytar: { loads: false, error: abiError('115', '150').replace('better_sqlite3', 'keytar') },
      },
    }
    expect(planNativeModules({ target: 'electron', expectedAbi: '150', probe })).toEqual({
      action: 'rebuild',
      target: 'electron',
      commandLine: 'node node_modules/electron-builder/cli.js install-app-deps',
      reasons: [
        'better-sqlite3 (built for NODE_MODULE_VERSION 115, Electron needs 150)',
        'keytar (built for NODE_MODULE_VERSION 115, Electron needs 150)',
      ],
    })
  })

  it('rebuilds with npm when Node meets modules built for Electron, naming only those that fail', () => {
    const probe: Probe = {
      abi: '115',
      version: '20.20.2',
      modules: { 'better-sqlite3': { loads: false, error: abiError('150', '115') }, keytar: loads },
    }
    expect(planNativeModules({ target: 'node', expectedAbi: '115', probe })).toEqual({
      action: 'rebuild',
      target: 'node',
      commandLine: 'npm rebuild better-sqlite3 keytar',
      reasons: ['better-sqlite3 (built for NODE_MODULE_VERSION 150, Node needs 115)'],
    })
  })

  it('rebuilds what a failed rebuild left unbuilt, and a module the probe did not report', () => {
    const probe: Probe = {
      abi: '115',
      modules: {
        'better-sqlite3': {
          loads: false,
          error: 'Could not locate the bindings file. Tried: → /x/build/better_sqlite3.node',
        },
      },
    }
    const plan = planNativeModules({ target: 'node', expectedAbi: '115', probe })
    expect(plan).toMatchObject({
      action: 'rebuild',
      reasons: ['better-sqlite3 (not built)', 'keytar (no reason given)'],
    })
  })

  it('refuses an Electron binary whose ABI is not the installed electron package’s, without rebuilding', () => {
    const probe: Probe = {
      abi: '140',
      version: '38.0.0',
      modules: { 'better-sqlite3': loads, keytar: loads },
    }
    const plan = planNativeModules({ target: 'electron', expectedAbi: '150', probe })
    expect(plan.action).toBe('fail')
    expect(plan).toMatchObject({ message: expect.stringContaining('NODE_MODULE_VERSION 140') })
    expect(plan).toMatchObject({
      message: expect.stringContaining('node_modules/electron/abi_version says 150'),
    })
    expect(plan).toMatchObject({ message: expect.stringContaining('ELECTRON_EXEC_PATH') })
  })

  it('says why when the runtime could not be asked', () => {
    const plan = planNativeModules({
      target: 'electron',
      expectedAbi: '150',
      probe: { error: 'exited with 127' },
    })
    expect(plan).toEqual({
      action: 'fail',
      message: 'Electron could not be started to check the native modules: exited with 127',
    })
  })
})

describe('rebuild commands', () => {
  it("build for Electron without npm's nodedir, which would point node-gyp at Node's headers", () => {
    expect(REBUILDS.electron.command).toBe('node')
    expect(REBUILDS.electron.dropEnv).toContain('npm_config_nodedir')
    expect(REBUILDS.node.args).toEqual(['rebuild', ...NATIVE_MODULES])
  })
})

describe('this install', () => {
  it('Node loads better-sqlite3 and keytar at its own ABI', () => {
    const probe = probeNativeModules('node')
    console.log(
      `Node ${probe.version}: NODE_MODULE_VERSION ${probe.abi}; ` +
        NATIVE_MODULES.map((m) => `${m} ${probe.modules?.[m]?.loads ? 'loads' : 'does not load'}`).join(', '),
    )
    expect(probe.abi).toBe(process.versions.modules)
    expect(probe.modules).toEqual({ 'better-sqlite3': loads, keytar: loads })
    expect(planNativeModules({ target: 'node', expectedAbi: expectedAbi('node'), probe })).toEqual({
      action: 'none',
    })
  })

  it('the electron package declares the ABI its binary must report', () => {
    expect(expectedAbi('electron')).toMatch(/^\d+$/)
  })

  it('a binary that is not that Electron is refused before anything is rebuilt', () => {
    // Node posing as the Electron binary: it runs the probe, but reports Node's ABI.
    const result = makeNativeModulesLoadable('electron', process.execPath)
    expect(result).toMatchObject({ ok: false })
    expect(result).toMatchObject({
      message: expect.stringContaining(`reports NODE_MODULE_VERSION ${process.versions.modules}`),
    })
  })
})
