// The links in "Mail from the local trial" open in the system browser (Electron's one safe path:
// the window-open handler), but only those to the service this app runs on this computer right now.
import { describe, expect, it } from 'vitest'
import { guardWebContents, isLocalServiceLink } from '../../src/main/electron/web-contents-guard'

function contentsWithOpenHandler() {
  let openHandler: ((details: { url: string }) => { action: string }) | undefined
  return {
    on: () => undefined,
    getURL: () => 'app://vault/index.html',
    setWindowOpenHandler: (handler: (details: { url: string }) => { action: string }) => {
      openHandler = handler
    },
    open: (target: string) => openHandler?.({ url: target }),
  }
}

describe('links to the local service', () => {
  it('opens links to the running local service externally, never in the app, and nothing else', () => {
    const opened: string[] = []
    let current: string | null = null
    const contents = contentsWithOpenHandler()
    guardWebContents(
      contents as never,
      (url) => opened.push(url),
      () => current,
    )
    const accept = 'http://127.0.0.1:45123/guardian/gt_abc/accept'
    // Not started yet: nothing is local.
    expect(contents.open(accept)).toEqual({ action: 'deny' })
    current = 'http://127.0.0.1:45123'
    expect(contents.open(accept)).toEqual({ action: 'deny' })
    expect(contents.open('http://127.0.0.1:45124/guardian/gt_abc/accept')).toEqual({ action: 'deny' })
    expect(contents.open('http://localhost:45123/guardian/gt_abc/accept')).toEqual({ action: 'deny' })
    expect(contents.open('https://evil.example/guardian/gt_abc/accept')).toEqual({ action: 'deny' })
    expect(opened).toEqual([accept])
  })

  it('accepts only http(s) URLs on the same origin', () => {
    expect(isLocalServiceLink('javascript:alert(1)', 'http://127.0.0.1:1')).toBe(false)
    expect(isLocalServiceLink('not a url', 'http://127.0.0.1:1')).toBe(false)
    expect(isLocalServiceLink('http://127.0.0.1:1/x', null)).toBe(false)
    expect(isLocalServiceLink('http://127.0.0.1:1/x', 'http://127.0.0.1:1')).toBe(true)
  })
})
