// Every word the window shows comes from the catalogue (src/renderer/text/en.ts), so a translation is a
// file, not a hunt. The scan (test/support/hard-coded-text.ts) reads each renderer source with the
// TypeScript compiler and reports what looks like user-facing text written in place.
import { readdirSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT, scan } from '../support/hard-coded-text'

const RENDERER = join(ROOT, 'src', 'renderer')

/** Not scanned: the catalogue itself, and the bridge (transport code; its errors are the app core's). */
const SKIPPED_DIRS = ['text', 'bridge']

/**
 * Files whose words have not been moved into the catalogue yet. Keep this empty; a file listed here is
 * a known gap, not an exception.
 */
const NOT_YET_CONVERTED: string[] = []

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory())
      return dir === RENDERER && SKIPPED_DIRS.includes(entry.name) ? [] : sourceFiles(path)
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : []
  })
}

describe('renderer text lives in the catalogue', () => {
  const files = sourceFiles(RENDERER)

  it('finds the renderer sources', () => {
    expect(files.length).toBeGreaterThan(30)
    expect(files.map((f) => relative(ROOT, f))).toContain('src/renderer/screens/RecoveryScreen.tsx')
  })

  it('no component writes user-facing words in place', () => {
    const findings = files
      .filter((file) => !NOT_YET_CONVERTED.includes(relative(ROOT, file)))
      .flatMap((file) => scan(file))
      .map((f) => `${f.file}:${f.line} ${f.why}: ${f.text}`)
    // One line per finding: move the words into src/renderer/text/en.ts and use `text.<section>.<key>`.
    expect(findings.join('\n')).toBe('')
  })

  it('the check itself catches each kind of hard-coded text', () => {
    const probe = `
      import { text } from '../text'
      const LABEL = 'Something went wrong, try again.'
      export function Probe({ busy, status }: { busy: boolean; status: string }) {
        if (!busy) throw new Error(\`No vault \${status}\`)
        const when = new Date().toLocaleDateString('en-GB')
        return (
          <div className="row small" data-testid="probe" aria-label="Probe panel">
            <h2>{text.app.name}</h2>
            Hello there
            <p>{busy ? 'Saving…' : \`\${status} saved\`}</p>
            <p>{status === 'failed-hard' ? '✓' : '—'}</p>
            <button type="button" title="Open it">{text.common.dismiss}</button>
            <input placeholder={busy ? text.common.cancel : 'Type here'} />
            <Dialog confirmLabel="Delete it" />
          </div>
        )
      }`
    const found = scan(join(RENDERER, 'probe.tsx'), probe).map((f) => f.why)
    expect(found).toEqual([
      'sentence in code',
      'error message',
      'formatting outside src/shared/locale-format.ts',
      'aria-label attribute',
      'JSX text',
      'string shown in JSX',
      'string shown in JSX',
      'title attribute',
      'placeholder attribute',
      'confirmLabel attribute',
    ])
  })

  it('every listed unconverted file still exists', () => {
    for (const file of NOT_YET_CONVERTED) expect(files.map((f) => relative(ROOT, f))).toContain(file)
  })
})
