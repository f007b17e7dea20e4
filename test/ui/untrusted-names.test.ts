// Names from outside the app (files, services, kits) drawn so they cannot disguise themselves or
// turn the sentence around them over: the shared function, the queue row and the notice.
import { createElement, type FunctionComponent } from 'react'
import { renderToStaticMarkup } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import type { Toast } from '../../src/renderer/stores/notice-queue'
import { text } from '../../src/renderer/text'
import { AppError } from '../../src/shared/app-error'
import type { UploadItemView, UploadProgressView } from '../../src/shared/ipc/vault-types'
import {
  FSI,
  hasHiddenControls,
  isolateName,
  isolateNameHtml,
  PDI,
  revealControls,
  revealSentence,
} from '../../src/shared/untrusted-text'

// The components are loaded at run time: the Node typecheck of test/ has no JSX or DOM (the
// renderer's own tsconfig checks them).
const components = '../../src/renderer/components'
const { UploadRow } = (await import(`${components}/UploadQueue.tsx`)) as {
  UploadRow: FunctionComponent<{
    item: UploadItemView
    progress: UploadProgressView | undefined
    bundleFiles: number | undefined
  }>
}
const { ErrorNotice } = (await import(`${components}/ErrorNotice.tsx`)) as {
  ErrorNotice: FunctionComponent<{ error: unknown }>
}
const { ToastText } = (await import(`${components}/Toasts.tsx`)) as {
  ToastText: FunctionComponent<{ toast: Toast }>
}

/** Shown as "photoexe.jpg" by any text renderer. */
const DISGUISED = 'photo\u202Egpj.exe'
const SHOWN = 'photo[U+202E]gpj.exe'
// Every character the issue names, plus the invisible ones the function also shows.
const BIDI_CONTROLS = [
  0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069,
]
const INVISIBLE = [0x0000, 0x000a, 0x001b, 0x007f, 0x0085, 0x00ad, 0x200b, 0x2028, 0x2029, 0x2060, 0xfeff]

/** Any raw character that reorders text, other than the FSI/PDI pair the app itself writes. */
const RAW_REORDERING = /[\u061c\u200e\u200f\u202a-\u202e\u2066\u2067]/u

describe('revealControls', () => {
  it('shows every bidirectional control as a marker', () => {
    for (const code of BIDI_CONTROLS) {
      const char = String.fromCodePoint(code)
      const hex = code.toString(16).toUpperCase().padStart(4, '0')
      expect(revealControls(`a${char}b`)).toBe(`a[U+${hex}]b`)
      expect(hasHiddenControls(`a${char}b`)).toBe(true)
    }
    expect(revealControls(DISGUISED)).toBe(SHOWN)
  })

  it('shows control and invisible characters, so a name cannot forge a line or hide a letter', () => {
    for (const code of INVISIBLE) {
      const char = String.fromCodePoint(code)
      expect(revealControls(`a${char}b`)).toBe(`a[U+${code.toString(16).toUpperCase().padStart(4, '0')}]b`)
    }
  })

  it('leaves ordinary names alone, in any script, emoji joiners included', () => {
    for (const name of [
      'will.pdf',
      'Fotos/día 1.jpg',
      'צוואה.pdf',
      'وصية.txt',
      'مي\u200Cخواهم.txt',
      '👨\u200D👩\u200D👧.png',
    ]) {
      expect(revealControls(name)).toBe(name)
      expect(hasHiddenControls(name)).toBe(false)
    }
  })

  it('is the same however often it runs (the regular expressions keep no state)', () => {
    for (let i = 0; i < 3; i++) {
      expect(hasHiddenControls(DISGUISED)).toBe(true)
      expect(revealControls(DISGUISED)).toBe(SHOWN)
    }
  })
})

describe('isolateName and revealSentence', () => {
  it('wraps the shown name in a first-strong isolate', () => {
    expect(isolateName(DISGUISED)).toBe(`${FSI}${SHOWN}${PDI}`)
    // A name cannot close the app's isolate early: its own PDI is shown, not kept.
    expect(isolateName(`a${PDI}\u202Eb`)).toBe(`${FSI}a[U+2069][U+202E]b${PDI}`)
  })

  it('keeps the app-made isolates of a sentence and shows everything else', () => {
    const sentence = `${isolateName('a.txt')} could not be read.\nRetry.`
    expect(revealSentence(sentence)).toBe(sentence)
    expect(revealSentence(`${DISGUISED} cannot be backed up`)).toBe(`${SHOWN} cannot be backed up`)
  })

  it('escapes and isolates a name for an HTML page', () => {
    expect(isolateNameHtml(`<b>${DISGUISED}</b>&`)).toBe(`<bdi>&lt;b&gt;${SHOWN}&lt;/b&gt;&amp;</bdi>`)
  })
})

function item(overrides: Partial<UploadItemView>): UploadItemView {
  return {
    id: 'item-1',
    vaultId: 'vault-1',
    batchId: 'batch-1',
    relativePath: DISGUISED,
    state: 'failed',
    sentBytes: 0,
    createdAt: '2026-11-26T15:00:00.000Z',
    updatedAt: '2026-11-26T15:00:00.000Z',
    ...overrides,
  } as UploadItemView
}

/** The refusal as the upload queue writes it (src/main/core/uploads/upload-queue.ts). */
const REFUSAL = `${isolateName(DISGUISED)} cannot be backed up under this name: The file's path contains an invisible text-direction character (U+202E), which can disguise a file's real name; rename the file or folder. Rename the file, then upload it again.`

describe('the upload queue row', () => {
  it('shows the disguised name with its marker, in an isolate of its own', () => {
    const html = renderToStaticMarkup(
      createElement(UploadRow, {
        item: item({ error: { code: 'BAD_FILE_NAME', message: REFUSAL } }),
        progress: undefined,
        bundleFiles: undefined,
      }),
    )
    expect(html).toContain(
      `<bdi dir="auto" class="filename" title="${SHOWN}" data-untrusted="">${SHOWN}</bdi>`,
    )
    expect(html).toContain('cannot be backed up under this name')
    expect(html).not.toMatch(RAW_REORDERING)
    expect(html).not.toContain(DISGUISED)
  })

  it('shows the markers in an error written before names were isolated (kept in uploads.sqlite)', () => {
    const html = renderToStaticMarkup(
      createElement(UploadRow, {
        item: item({
          error: { code: 'BAD_FILE_NAME', message: `${DISGUISED} cannot be backed up under this name.` },
        }),
        progress: undefined,
        bundleFiles: undefined,
      }),
    )
    expect(html).toContain(`${SHOWN} cannot be backed up under this name.`)
    expect(html).not.toMatch(RAW_REORDERING)
  })

  it('names the file in the progress bar label with the marker (read aloud, not drawn: no isolate)', () => {
    expect(text.uploadQueue.progress(DISGUISED, 40)).toBe(`${SHOWN}: 40%`)
  })
})

describe('the notice (toast)', () => {
  const render = (toast: Partial<Toast>) =>
    renderToStaticMarkup(
      createElement(ToastText, { toast: { id: 1, kind: 'upload-failed', body: '', lines: [], ...toast } }),
    )

  it('shows the refusal with the marker and the name isolated', () => {
    const html = render({ title: '1 upload failed', body: `Family papers: ${REFUSAL}` })
    expect(html).toContain(`<p><bdi dir="ltr">Family papers: ${FSI}${SHOWN}${PDI} cannot be backed up`)
    expect(html).not.toMatch(RAW_REORDERING)
  })

  it('shows the markers in a notice whose writer did not isolate the name', () => {
    const html = render({ title: DISGUISED, body: `${DISGUISED} failed` })
    expect(html).toContain(`<strong><bdi dir="ltr">${SHOWN}</bdi></strong>`)
    expect(html).toContain(`${SHOWN} failed`)
    expect(html).not.toMatch(RAW_REORDERING)
  })

  it('shows the markers in each line of finished backups', () => {
    const html = render({
      kind: 'upload-done',
      body: '',
      lines: [`${DISGUISED}: 1 file stored`, 'Papers: 2 files stored'],
    })
    expect(html).toContain(`${SHOWN}: 1 file stored`)
    expect(html).not.toMatch(RAW_REORDERING)
  })
})

describe('an error notice', () => {
  it('shows the hidden characters of its sentence and its technical detail', () => {
    const error = new AppError({
      code: 'NOTHING_TO_UPLOAD',
      userMessage: `Nothing to upload there: ${DISGUISED} is not a file.`,
      detail: `ENOENT ${DISGUISED}`,
    })
    const html = renderToStaticMarkup(createElement(ErrorNotice, { error }))
    expect(html).toContain(`Nothing to upload there: ${SHOWN} is not a file.`)
    expect(html).toContain(`ENOENT ${SHOWN}`)
    expect(html).not.toMatch(RAW_REORDERING)
  })
})

describe('names the service holds: guardians and heirs', () => {
  it("a guardian's or heir's name and e-mail show the marker and keep their direction to themselves", async () => {
    const screens = '../../src/renderer/screens'
    const { PeopleTab } = (await import(`${screens}/vault/PeopleTab.tsx`)) as {
      PeopleTab: FunctionComponent<Record<string, unknown>>
    }
    const html = renderToStaticMarkup(
      createElement(PeopleTab, {
        t: text.heirs,
        countTestId: 'heir-count',
        max: 5,
        note: '',
        people: [{ id: 'hr_1', name: DISGUISED, email: `x${DISGUISED}@example.com` }],
        listed: { fromService: true },
        onReload: () => {},
        columns: [],
        writable: true,
        action: { busy: false, error: undefined, run: async () => true, clearError: () => {} },
        onAdd: async () => true,
        onRemove: async () => {},
        removeNote: () => '',
      }),
    )
    expect(html).not.toContain(DISGUISED)
    expect(html).toContain(`<bdi dir="auto" data-untrusted="">${SHOWN}</bdi>`)
    // The address in an isolate of its own, breakable only after the @ or before a dot.
    expect(html).toContain('<bdi dir="ltr" class="email-address" data-untrusted="">')
    expect(html.replace(/<[^>]+>/g, '')).toContain(`x${SHOWN}@example.com`)
  })
})

describe("a vault's label in what the desktop draws itself: notifications and the tray", () => {
  it('shows its hidden characters as markers', async () => {
    const { releasingNotice, creditsLowNotice } = await import('../../src/main/core/vaults/vault-notices')
    const { deriveTrayState } = await import('../../src/main/core/vaults/tray-state')
    const notice = releasingNotice(DISGUISED, { vaultId: 'vlt_1', daysLeftToCancel: 30 } as never)
    expect(notice.title).toBe(`${SHOWN} is releasing`)
    expect(creditsLowNotice({ id: 'vlt_1', label: DISGUISED, creditsBalance: 2 }, 1, null).title).toContain(
      SHOWN,
    )
    const now = Date.parse('2026-11-26T12:00:00Z')
    const tray = deriveTrayState(
      [
        {
          vaultId: 'vlt_1',
          label: DISGUISED,
          state: 'active',
          nextCheckInDue: new Date(now + 86_400_000).toISOString(),
        },
      ],
      now,
    )
    expect(JSON.stringify(tray)).not.toContain(DISGUISED)
    expect(tray.nextCheckIn?.text).toContain(SHOWN)
  })
})
