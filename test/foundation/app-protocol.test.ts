// The app:// answers: only the renderer folder's regular files, only on app://vault, only GET/HEAD,
// always with the CSP header; nothing outside the folder is reachable, however the path is spelt.
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { APP_PAGE_URL, appProtocolResponse, CONTENT_SECURITY_POLICY } from '../../src/main/renderer-files'

let root: string
let rendererDir: string
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'app-protocol-'))
  rendererDir = join(root, 'renderer')
  await mkdir(join(rendererDir, 'assets'), { recursive: true })
  await writeFile(join(rendererDir, 'index.html'), '<!doctype html><title>Vault Desktop</title>')
  await writeFile(join(rendererDir, 'assets', 'index.js'), 'console.log(1)')
  await writeFile(join(root, 'secret.txt'), 'outside the renderer folder')
  await writeFile(join(root, 'renderer-sibling.txt'), 'a sibling whose name starts like the folder')
})

const get = (url: string, method = 'GET') => appProtocolResponse({ url, method }, rendererDir)

describe('app:// protocol', () => {
  it('serves the page and its assets with their types, the CSP and nosniff', async () => {
    const page = await get(APP_PAGE_URL)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(page.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY)
    expect(page.headers.get('x-content-type-options')).toBe('nosniff')
    expect(await page.text()).toContain('<title>Vault Desktop</title>')
    const root = await get('app://vault/')
    expect(await root.text()).toContain('<title>Vault Desktop</title>')
    const script = await get('app://vault/assets/index.js')
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(await script.text()).toBe('console.log(1)')
    const head = await get('app://vault/assets/index.js', 'HEAD')
    expect(head.status).toBe(200)
    expect(head.headers.get('content-length')).toBe('14')
  })

  it('keeps the policy strict: no inline or remote script, no framing, no plugins', () => {
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'")
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/script-src[^;]*(unsafe-inline|unsafe-eval|https?:|\*)/)
    expect(CONTENT_SECURITY_POLICY).toContain("frame-ancestors 'none'")
    expect(CONTENT_SECURITY_POLICY).toContain("object-src 'none'")
  })

  it('reaches nothing outside the renderer folder, however the path is spelt', async () => {
    for (const url of [
      'app://vault/../secret.txt',
      'app://vault/%2e%2e/secret.txt',
      'app://vault/%2e%2e%2fsecret.txt',
      'app://vault/..%5csecret.txt',
      'app://vault/assets/..%2f..%2fsecret.txt',
      'app://vault/../renderer-sibling.txt',
      `app://vault/${encodeURIComponent(join(root, 'secret.txt'))}`,
      'app://vault/%E0',
      'app://vault/assets',
      'app://vault/missing.js',
    ]) {
      const response = await get(url)
      expect({ url, status: response.status }).toEqual({ url, status: 404 })
      expect(await response.text()).not.toContain('outside')
    }
  })

  it('answers only app://vault and only reads', async () => {
    expect((await get('app://other/index.html')).status).toBe(404)
    expect((await get('app://vault.evil/index.html')).status).toBe(404)
    expect((await get('file:///etc/passwd')).status).toBe(404)
    expect((await get(APP_PAGE_URL, 'POST')).status).toBe(405)
  })
})
