// The window's bundle: no chunk over Vite's 500 kB warning, so `npm start` builds without it, and the
// screens opened rarely (Recovery, Settings) load on first use instead of with the window.
import { join } from 'node:path'
import react from '@vitejs/plugin-react'
import { build, type Rolldown } from 'vite'
import { describe, expect, it } from 'vitest'

const WARNING_BYTES = 500 * 1000

describe('the renderer bundle', () => {
  it('has no chunk over 500 kB, and Recovery and Settings in chunks of their own', async () => {
    const result = (await build({
      configFile: false,
      // As npm start builds it (vitest sets NODE_ENV=test, which would bundle React's development build).
      mode: 'production',
      define: { 'process.env.NODE_ENV': JSON.stringify('production') },
      logLevel: 'silent',
      root: join(process.cwd(), 'src/renderer'),
      plugins: [react()],
      build: { write: false, minify: true, rolldownOptions: { input: 'src/renderer/index.html' } },
    })) as Rolldown.RolldownOutput | Rolldown.RolldownOutput[]
    const output = (Array.isArray(result) ? result : [result]).flatMap((r) => r.output)
    const chunks = output.filter((o): o is Rolldown.OutputChunk => o.type === 'chunk')
    expect(chunks.length).toBeGreaterThan(1)
    for (const chunk of chunks) expect(chunk.code.length, chunk.fileName).toBeLessThan(WARNING_BYTES)
    const entry = chunks.find((c) => c.isEntry)!
    const lazy = chunks.filter((c) => c.isDynamicEntry).map((c) => c.name)
    expect(lazy).toEqual(expect.arrayContaining(['RecoveryScreen', 'SettingsScreen']))
    expect(entry.moduleIds.some((id) => id.endsWith('RecoveryScreen.tsx'))).toBe(false)
  }, 60_000)
})
