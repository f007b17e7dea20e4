// The Node-side bundles carry zod inside them, tree-shaken, instead of loading the whole package and all
// its locales from node_modules at start (scripts/bundled-dependencies.mjs); every other package stays
// external, as native modules must.
import { build } from 'esbuild'
import { describe, expect, it } from 'vitest'
import config from '../../electron.vite.config'
import { BUNDLED_DEPENDENCIES, externalExceptBundled } from '../../scripts/bundled-dependencies.mjs'

describe('bundled dependencies', () => {
  it('esbuild bundles: zod inside, tree-shaken; other packages and node: built-ins external', async () => {
    const result = await build({
      stdin: {
        resolveDir: process.cwd(),
        contents: [
          "import * as z from 'zod/mini'",
          "import got from 'got'",
          "import { gcm } from '@noble/ciphers/aes.js'",
          "import { join } from 'node:path'",
          'console.log(z.object({ a: z.string() }).parse({ a: join("x") }), got, gcm)',
        ].join('\n'),
      },
      bundle: true,
      write: false,
      platform: 'node',
      format: 'esm',
      plugins: [externalExceptBundled],
      logLevel: 'silent',
    })
    const code = result.outputFiles[0]!.text
    const imported = [...code.matchAll(/from "([^"]+)"/g)].map((m) => m[1])
    expect(imported.sort()).toEqual(['@noble/ciphers/aes.js', 'got', 'node:path'])
    // Tree-shaken: none of zod's locales, which its package entry loads.
    expect(code).toContain('ZodMiniObject')
    expect(code).not.toMatch(/locales[/\\]/)
  })

  it('the app: electron-vite bundles the same packages into the main process', () => {
    const main = (config as { main: { build: { externalizeDeps: unknown } } }).main
    expect(main.build.externalizeDeps).toEqual({ exclude: BUNDLED_DEPENDENCIES })
    expect(BUNDLED_DEPENDENCIES).toContain('zod')
  })
})
