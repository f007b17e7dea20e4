import { EventEmitter } from 'node:events'
import { describe, expect, it } from 'vitest'
import { chooseRendererUrl, ipcRefusal, isTrustedRendererUrl } from '../../src/main/electron/trusted-renderer'
import {
  denyAllPermissions,
  guardWebContents,
  isAllowedExternalLink,
} from '../../src/main/electron/web-contents-guard'
import { mainWindowOptions } from '../../src/main/electron/window-options'
import { APP_PAGE_URL } from '../../src/main/renderer-files'

describe('main window security baseline', () => {
  const options = mainWindowOptions({
    preload: '/app/out/preload/index.cjs',
    icon: '/app/resources/icon.png',
  })

  it('isolates and sandboxes the renderer', () => {
    expect(options.webPreferences).toMatchObject({
      preload: '/app/out/preload/index.cjs',
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      navigateOnDragDrop: false,
    })
  })

  it('does not show before the first paint', () => {
    expect(options.show).toBe(false)
  })
})

type Handler = (...args: unknown[]) => void

function fakeContents(url: string) {
  const emitter = new EventEmitter()
  let openHandler: ((details: { url: string }) => { action: string }) | undefined
  return {
    on: (name: string, handler: Handler) => emitter.on(name, handler),
    emit: (name: string, ...args: unknown[]) => emitter.emit(name, ...args),
    getURL: () => url,
    setWindowOpenHandler: (handler: (details: { url: string }) => { action: string }) => {
      openHandler = handler
    },
    open: (target: string) => openHandler?.({ url: target }),
  }
}

function preventable() {
  const event = { prevented: false, preventDefault: () => (event.prevented = true) }
  return event
}

describe('web contents guard', () => {
  it('denies navigation away from the app and allows reloading the same page', () => {
    const contents = fakeContents('app://vault/index.html')
    guardWebContents(contents as never, () => {})
    const away = preventable()
    contents.emit('will-navigate', away, 'https://evil.example/')
    expect(away.prevented).toBe(true)
    const same = preventable()
    contents.emit('will-navigate', same, 'app://vault/index.html')
    expect(same.prevented).toBe(false)
    const webview = preventable()
    contents.emit('will-attach-webview', webview)
    expect(webview.prevented).toBe(true)
  })

  it('denies every new window and opens only allow-listed https links externally', () => {
    const opened: string[] = []
    const contents = fakeContents('app://vault/index.html')
    guardWebContents(contents as never, (url) => opened.push(url))
    expect(contents.open('https://github.com/vault-desktop')).toEqual({ action: 'deny' })
    expect(contents.open('http://github.com/insecure')).toEqual({ action: 'deny' })
    expect(contents.open('https://evil.example/')).toEqual({ action: 'deny' })
    expect(opened).toEqual(['https://github.com/vault-desktop'])
    expect(isAllowedExternalLink('javascript:alert(1)')).toBe(false)
  })

  it('denies every permission request and check', () => {
    let requestHandler: ((c: unknown, p: string, cb: (granted: boolean) => void) => void) | undefined
    let checkHandler: (() => boolean) | undefined
    denyAllPermissions({
      setPermissionRequestHandler: (handler: never) => {
        requestHandler = handler
      },
      setPermissionCheckHandler: (handler: never) => {
        checkHandler = handler
      },
    } as never)
    const answers: boolean[] = []
    for (const permission of ['media', 'geolocation', 'notifications', 'clipboard-read']) {
      requestHandler?.({}, permission, (granted) => answers.push(granted))
    }
    expect(answers).toEqual([false, false, false, false])
    expect(checkHandler?.()).toBe(false)
  })
})

describe('IPC sender validation', () => {
  it('trusts only the app page itself', () => {
    const page = APP_PAGE_URL
    expect(isTrustedRendererUrl('app://vault/index.html', page)).toBe(true)
    expect(isTrustedRendererUrl('app://vault/index.html#/vault/1', page)).toBe(true)
    expect(isTrustedRendererUrl('app://vault.evil/index.html', page)).toBe(false)
    expect(isTrustedRendererUrl('app://other/index.html', page)).toBe(false)
    expect(isTrustedRendererUrl('file:///app/out/renderer/index.html', page)).toBe(false)
    expect(isTrustedRendererUrl('https://evil.example/', page)).toBe(false)
    expect(isTrustedRendererUrl('https://vault/index.html', page)).toBe(false)
    expect(isTrustedRendererUrl('http://localhost:5173/', 'http://localhost:5173/')).toBe(true)
    expect(isTrustedRendererUrl('http://localhost:5174/', 'http://localhost:5173/')).toBe(false)
    expect(isTrustedRendererUrl('not a url', page)).toBe(false)
  })

  it('trusts no file:// page at all, whichever the renderer URL (file:// has no origin to pin)', () => {
    const filePage = 'file:///app/out/renderer/index.html'
    expect(isTrustedRendererUrl(filePage, filePage)).toBe(false)
    expect(isTrustedRendererUrl('file:///tmp/other.html', filePage)).toBe(false)
  })

  it('refuses a sub-frame of the app page, another window, and another page', () => {
    const page = APP_PAGE_URL
    const top = { fromMainWindow: true, topFrame: true, frameUrl: page }
    expect(ipcRefusal(top, page)).toBeNull()
    expect(ipcRefusal({ ...top, topFrame: false }, page)).toMatch(/sub-frame/)
    expect(ipcRefusal({ ...top, fromMainWindow: false }, page)).toMatch(/main window/)
    expect(ipcRefusal({ ...top, frameUrl: 'https://evil.example/' }, page)).toMatch(/other than the app/)
  })
})

describe('the page the window loads', () => {
  const builtPageUrl = APP_PAGE_URL

  it('ignores ELECTRON_RENDERER_URL in a packaged app', () => {
    expect(chooseRendererUrl({ isPackaged: true, devServerUrl: 'https://evil.example/', builtPageUrl })).toBe(
      builtPageUrl,
    )
    expect(
      chooseRendererUrl({ isPackaged: true, devServerUrl: 'http://localhost:5173/', builtPageUrl }),
    ).toBe(builtPageUrl)
  })

  it('uses the dev server only in development and only on loopback http', () => {
    expect(
      chooseRendererUrl({ isPackaged: false, devServerUrl: 'http://localhost:5173/', builtPageUrl }),
    ).toBe('http://localhost:5173/')
    expect(
      chooseRendererUrl({ isPackaged: false, devServerUrl: 'http://127.0.0.1:5173', builtPageUrl }),
    ).toBe('http://127.0.0.1:5173/')
    for (const devServerUrl of [
      'https://evil.example/',
      'http://192.168.1.5:5173/',
      'file:///tmp/x.html',
      'nonsense',
    ]) {
      expect(chooseRendererUrl({ isPackaged: false, devServerUrl, builtPageUrl })).toBe(builtPageUrl)
    }
    expect(chooseRendererUrl({ isPackaged: false, devServerUrl: undefined, builtPageUrl })).toBe(builtPageUrl)
  })
})
