// The folders of src/ and what each may import (docs/ARCHITECTURE.md). A folder says where its code
// runs: a rule broken here is code that would not run where its folder says it does.
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import * as vaultFormat from '../../src/vault-format'
import * as batchApi from '../../src/vault-format/batch-api'

const ROOT = resolve(import.meta.dirname, '../..')
const SRC = join(ROOT, 'src')

interface Rule {
  /** Folder (or file) under src/ the rule is about. */
  place: string
  /** Folders of src/ its files may import, besides their own place. */
  mayImport: string[]
  /** Packages (bare specifiers, by prefix) it may import; null: any package. */
  packages: string[] | null
  /** Whether node: built-ins are allowed. */
  node: boolean
}

const NODE_PACKAGES = ['got', 'better-sqlite3', 'keytar', 'ws', 'file-type', 'zod', 'jsqr', 'pngjs', 'qrcode']

const RULES: Rule[] = [
  { place: 'shared', mayImport: [], packages: ['zod'], node: false },
  {
    place: 'vault-format',
    mayImport: [],
    packages: ['@noble/ciphers', '@noble/hashes', '@scure/bip39', 'shamir-secret-sharing'],
    node: false,
  },
  { place: 'node-cipher', mayImport: ['vault-format'], packages: [], node: true },
  { place: 'service-client', mayImport: ['shared'], packages: ['got', 'zod'], node: true },
  {
    place: 'recovery',
    mayImport: ['vault-format', 'node-cipher', 'service-client', 'shared'],
    packages: ['jsqr', 'pngjs'],
    node: true,
  },
  {
    place: 'main/core',
    mayImport: ['shared', 'vault-format', 'node-cipher', 'service-client', 'recovery'],
    packages: NODE_PACKAGES,
    node: true,
  },
  {
    place: 'main/browser',
    mayImport: ['main/core', 'main/local-service-host.ts', 'main/renderer-files.ts', 'shared', 'service'],
    packages: ['ws', 'zod'],
    node: true,
  },
  {
    place: 'main/electron',
    mayImport: ['main/core', 'main/local-service-host.ts', 'main/renderer-files.ts', 'shared', 'service'],
    packages: ['electron'],
    node: true,
  },
  {
    place: 'main/local-service-host.ts',
    mayImport: ['service', 'main/core', 'shared'],
    packages: [],
    node: true,
  },
  { place: 'main/renderer-files.ts', mayImport: [], packages: [], node: true },
  // The heir's recovery page: one HTML file that runs in any browser, from file:// too.
  { place: 'recovery-page', mayImport: ['vault-format', 'shared'], packages: ['jsqr'], node: false },
  { place: 'preload', mayImport: ['shared'], packages: ['electron'], node: false },
  { place: 'renderer', mayImport: ['shared'], packages: null, node: false },
  { place: 'service', mayImport: ['shared'], packages: null, node: true },
]

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return /\.(ts|tsx)$/.test(entry.name) ? [path] : []
  })
}

const IMPORT =
  /(?:^|[\s;])(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|(?:^|[\s;])import\s*['"]([^'"]+)['"]|(?:^|[\s;=(,])(?:import|require)\(\s*['"]([^'"]+)['"]\s*\)/gm

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  return [...text.matchAll(IMPORT)].map((m) => m[1] ?? m[2] ?? m[3] ?? '')
}

function placeOf(file: string): Rule | undefined {
  const rel = relative(SRC, file)
  // The most specific place wins (main/core before main).
  return RULES.filter((rule) => rel === rule.place || rel.startsWith(`${rule.place}/`)).sort(
    (a, b) => b.place.length - a.place.length,
  )[0]
}

function within(target: string, place: string): boolean {
  const rel = relative(SRC, target)
  return (
    rel === place ||
    rel.startsWith(`${place}/`) ||
    rel.replace(/\.tsx?$/, '') === place.replace(/\.tsx?$/, '')
  )
}

function violations(file: string): string[] {
  const rule = placeOf(file)
  if (!rule) return [`${relative(ROOT, file)} lies in no folder of docs/ARCHITECTURE.md`]
  const found: string[] = []
  for (const spec of importsOf(file)) {
    const where = `${relative(ROOT, file)} imports '${spec}'`
    if (spec.startsWith('.')) {
      const target = resolve(dirname(file), spec)
      if (!within(target, 'src') && !target.startsWith(SRC)) {
        // Assets and package metadata outside src/ (icons, CSS, package.json) are the build's business.
        continue
      }
      const allowed = [rule.place, ...rule.mayImport].some((place) => within(target, place))
      if (!allowed)
        found.push(`${where}: ${rule.place} may import ${[...rule.mayImport].join(', ') || 'only itself'}`)
    } else if (spec.startsWith('node:')) {
      if (!rule.node) found.push(`${where}: ${rule.place} must run outside Node`)
    } else if (rule.packages !== null) {
      const ok = rule.packages.some((name) => spec === name || spec.startsWith(`${name}/`))
      if (!ok) found.push(`${where}: not among the packages ${rule.place} may use`)
    }
  }
  return found
}

/**
 * The format library has two doors (its README): index.ts, and batch-api.ts for worker threads that
 * only seal or open chunk batches. A file outside the folder that imports any other of its files by
 * name reaches past them. Returns what `file` reaches into.
 */
function deepFormatImports(file: string, specs: string[]): string[] {
  if (within(file, 'vault-format')) return []
  return specs
    .filter((spec) => spec.startsWith('.'))
    .filter((spec) => {
      const rel = relative(join(SRC, 'vault-format'), resolve(dirname(file), spec))
      const door = ['index', 'index.ts', 'batch-api', 'batch-api.ts'].includes(rel)
      return rel !== '' && !door && !rel.startsWith('..')
    })
    .map((spec) => `${relative(ROOT, file)} imports '${spec}': import from the folder's index.ts instead`)
}

describe('import rules of src/', () => {
  const files = sourceFiles(SRC)

  it('reads the imports of every kind of statement', () => {
    const sample = join(SRC, 'main/core/ipc/handler-table.ts')
    expect(importsOf(sample)).toContain('../../../shared/ipc/contract')
  })

  it.each(RULES.map((rule) => [rule.place, rule] as const))('%s imports only what it may', (_place, rule) => {
    const mine = files.filter((file) => placeOf(file) === rule)
    expect(mine.length).toBeGreaterThan(0)
    expect(mine.flatMap(violations)).toEqual([])
  })

  it('every source file lies in a folder with rules', () => {
    expect(files.filter((file) => !placeOf(file)).map((file) => relative(ROOT, file))).toEqual([])
  })

  it('no two files import each other, however far round', () => {
    const resolveLocal = (from: string, spec: string): string | undefined => {
      const base = resolve(dirname(from), spec)
      return [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), base].find((path) => files.includes(path))
    }
    const edges = new Map(
      files.map((file) => [
        file,
        importsOf(file)
          .filter((spec) => spec.startsWith('.'))
          .map((spec) => resolveLocal(file, spec))
          .filter((target): target is string => target !== undefined),
      ]),
    )
    const circles: string[] = []
    const state = new Map<string, 'open' | 'done'>()
    const visit = (file: string, path: string[]) => {
      state.set(file, 'open')
      for (const next of edges.get(file) ?? []) {
        if (state.get(next) === 'open') {
          circles.push([...path.slice(path.indexOf(next)), next].map((f) => relative(SRC, f)).join(' -> '))
        } else if (!state.has(next)) visit(next, [...path, next])
      }
      state.set(file, 'done')
    }
    for (const file of files) if (!state.has(file)) visit(file, [file])
    expect(circles).toEqual([])
  })

  it('the second door, batch-api.ts, is a subset of index.ts: the same functions and constants', () => {
    const door = Object.entries(batchApi)
    expect(door.length).toBeGreaterThan(0)
    for (const [name, value] of door) expect((vaultFormat as Record<string, unknown>)[name]).toBe(value)
  })

  it('nothing outside vault-format imports its files past its two doors', () => {
    expect(files.flatMap((file) => deepFormatImports(file, importsOf(file)))).toEqual([])
  })

  it('the door rule sees a deep import, and lets the door and the folder itself through', () => {
    const outside = join(SRC, 'recovery/heir-recovery.ts')
    expect(deepFormatImports(outside, ['../vault-format/file-cipher'])).toHaveLength(1)
    expect(deepFormatImports(outside, ['../vault-format/chunk-batch'])).toHaveLength(1)
    expect(
      deepFormatImports(outside, [
        '../vault-format',
        '../vault-format/index',
        '../vault-format/batch-api',
        '../shared/x',
      ]),
    ).toEqual([])
    expect(deepFormatImports(join(SRC, 'vault-format/file-cipher.ts'), ['./chunk-batch'])).toEqual([])
  })

  it('the vault format uses no Node-only global', () => {
    const nodeGlobals = /\b(Buffer|process|__dirname|require)\b\s*[.(]/
    const offenders = files
      .filter((file) => within(file, 'vault-format'))
      .filter((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .some(
            (line) => !line.trim().startsWith('//') && !line.trim().startsWith('*') && nodeGlobals.test(line),
          ),
      )
    expect(offenders.map((file) => relative(ROOT, file))).toEqual([])
  })
})
