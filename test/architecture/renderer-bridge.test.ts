// Screens show, stores fetch and mutate: only the stores (and the entry point that connects) reach
// the bridge to the main process. A component calling it directly would hide a write from the stores.
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const RENDERER = resolve(import.meta.dirname, '../../src/renderer')
/** The only places besides the bridge itself that may import it. */
const MAY_IMPORT_BRIDGE = ['stores/', 'main.tsx']

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return /\.(ts|tsx)$/.test(entry.name) ? [path] : []
  })
}

/** Import specifiers of a file that reach the renderer's bridge folder. */
function bridgeImports(source: string): string[] {
  return [...source.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)]
    .map((m) => m[1] ?? '')
    .filter((spec) => /(^|\/)bridge(\/|$)/.test(spec))
}

describe('the renderer bridge', () => {
  it('finds a bridge import however it is written', () => {
    expect(bridgeImports("import { vault } from '../bridge/vault-client'")).toEqual([
      '../bridge/vault-client',
    ])
    expect(bridgeImports("import { x } from '../../bridge/drop-transfer'")).toEqual([
      '../../bridge/drop-transfer',
    ])
    expect(bridgeImports("const m = await import('./bridge/ws-transport')")).toEqual([
      './bridge/ws-transport',
    ])
    expect(bridgeImports("import { vault } from '../stores/vaults-store'")).toEqual([])
  })

  it('is imported only by the stores and the entry point, never by a screen or component', () => {
    const offenders = sourceFiles(RENDERER)
      .map((file) => relative(RENDERER, file).split('\\').join('/'))
      .filter((rel) => !rel.startsWith('bridge/') && !MAY_IMPORT_BRIDGE.some((p) => rel.startsWith(p)))
      .filter((rel) => bridgeImports(readFileSync(join(RENDERER, rel), 'utf8')).length > 0)
    expect(offenders).toEqual([])
  })
})
