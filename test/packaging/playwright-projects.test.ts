// Each Playwright project owns one folder under test/e2e. The old config picked specs with regexes
// that Playwright tests against absolute paths, so a checkout under e.g. ~/electron/ gave the
// browser-mode project no specs at all. These checks fail against that config wherever it is run.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative, resolve, sep } from 'node:path'
import { describe, expect, it } from 'vitest'
import config from '../../playwright.config'

const root = resolve(import.meta.dirname, '..', '..')
const e2eDir = join(root, 'test', 'e2e')
const projects = config.projects ?? []
// Playwright's default testMatch, the only file filter the projects may use.
const SPEC_FILE = /\.(spec|test)\.[cm]?[jt]sx?$/

function specFilesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => SPEC_FILE.test(name) && statSync(join(dir, name)).isFile())
    .map((name) => join(dir, name))
}

function isInside(dir: string, file: string): boolean {
  const path = relative(dir, file)
  return path !== '' && !path.startsWith('..') && !path.startsWith(sep)
}

type Filter = RegExp | string | readonly (RegExp | string)[] | undefined

function filterMatches(filter: Filter, absolutePath: string): boolean {
  const patterns = filter === undefined ? [] : Array.isArray(filter) ? filter : [filter as RegExp | string]
  return patterns.some((pattern) => {
    if (pattern instanceof RegExp) return pattern.test(absolutePath)
    throw new Error(`glob "${pattern}" in the Playwright config: select specs by testDir instead`)
  })
}

/**
 * Whether a project would run a spec if the checkout lived at `checkoutRoot`, following Playwright's
 * rules: inside the project's testDir (or the config's), matching testMatch (regexes are tested
 * against the absolute path) and not testIgnore.
 */
function projectSelects(project: (typeof projects)[number], checkoutRoot: string, specPath: string): boolean {
  const absolute = join(checkoutRoot, relative(root, specPath))
  const testDir = resolve(checkoutRoot, project.testDir ?? config.testDir ?? '.')
  if (!isInside(testDir, absolute)) return false
  const testMatch = project.testMatch ?? config.testMatch
  const included = testMatch === undefined ? SPEC_FILE.test(absolute) : filterMatches(testMatch, absolute)
  return included && !filterMatches(project.testIgnore ?? config.testIgnore, absolute)
}

describe('Playwright projects', () => {
  it('are browser-mode and electron, each with its own existing folder, neither inside the other', () => {
    expect(projects.map((project) => project.name)).toEqual(['browser-mode', 'electron'])
    const dirs = projects.map((project) => resolve(root, project.testDir ?? ''))
    for (const [index, dir] of dirs.entries()) {
      expect(project(index).testDir, `project ${project(index).name} has no testDir of its own`).toBeTruthy()
      expect(statSync(dir, { throwIfNoEntry: false })?.isDirectory(), `${dir} is not a folder`).toBe(true)
      for (const other of dirs.filter((_, i) => i !== index)) {
        expect(dir === other || isInside(other, dir), `${dir} overlaps ${other}`).toBe(false)
      }
    }
  })

  it('select specs by folder only: no testMatch or testIgnore over paths', () => {
    for (const scope of [config, ...projects]) {
      expect(scope.testMatch, 'testMatch in the Playwright config').toBeUndefined()
      expect(scope.testIgnore, 'testIgnore in the Playwright config').toBeUndefined()
    }
  })

  // Where the checkout lives must change nothing: the same single project for every spec.
  const ownersOf = (checkoutRoot: string) =>
    specFilesUnder(e2eDir).map((spec) => ({
      spec: relative(root, spec),
      owners: projects.filter((p) => projectSelects(p, checkoutRoot, spec)).map((p) => p.name),
    }))

  it('give every spec under test/e2e exactly one project', () => {
    const here = ownersOf(root)
    expect(here.length).toBeGreaterThan(0)
    for (const { spec, owners } of here) expect({ spec, owners: owners.length }).toEqual({ spec, owners: 1 })
  })

  it.each([
    '/home/someone/electron/vault-desktop',
    '/srv/browser-mode/checkout',
    '/tmp/e2e/test/e2e/electron/main',
  ])('give every spec the same project when the checkout lives at %s', (checkoutRoot) => {
    expect(ownersOf(checkoutRoot)).toEqual(ownersOf(root))
  })

  it('are what Playwright itself lists: each spec file under the project that owns its folder', () => {
    // The JSON report goes to a file: the Electron spec prints its skip line on stdout while loading.
    const outDir = mkdtempSync(join(tmpdir(), 'vault-playwright-list-'))
    try {
      const report = join(outDir, 'list.json')
      const result = spawnSync(
        process.execPath,
        ['node_modules/@playwright/test/cli.js', 'test', '--list', '--reporter=json'],
        { cwd: root, encoding: 'utf8', env: { ...process.env, PLAYWRIGHT_JSON_OUTPUT_NAME: report } },
      )
      expect(result.status, result.stderr).toBe(0)
      const listed = new Map<string, Set<string>>()
      collectListed(JSON.parse(readFileSync(report, 'utf8')), listed)
      for (const [index] of projects.entries()) {
        const { name, testDir } = project(index)
        const expected = specFilesUnder(resolve(root, testDir!)).map((file) => relative(root, file))
        const got = [...listed.entries()].filter(([, names]) => names.has(name!)).map(([file]) => file)
        expect({ name, files: got.sort() }).toEqual({ name, files: expected.sort() })
      }
      for (const [file, names] of listed)
        expect({ file, projects: names.size }).toEqual({ file, projects: 1 })
    } finally {
      rmSync(outDir, { recursive: true, force: true })
    }
  })
})

function project(index: number) {
  return projects[index]!
}

interface ListedSuite {
  file?: string
  suites?: ListedSuite[]
  specs?: { file: string; tests: { projectName: string }[] }[]
}

/** Walks Playwright's JSON report: spec file (relative to the root) → names of the projects listing it. */
function collectListed(suite: ListedSuite, into: Map<string, Set<string>>): void {
  for (const spec of suite.specs ?? []) {
    // Spec files in the report are relative to the config's folder, which is the repository root.
    const names = into.get(spec.file) ?? new Set<string>()
    for (const test of spec.tests) names.add(test.projectName)
    into.set(spec.file, names)
  }
  for (const child of suite.suites ?? []) collectListed(child, into)
}
