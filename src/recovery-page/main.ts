// The heir's recovery page: one HTML file (scripts/build-recovery-page.mjs inlines this script), opened
// from a file or served by a Vault Service, following the app's Recovery screen: where the encrypted
// files are, the guardians' kits, then the files decrypted, checked and written, with the recovery
// tool's report. No request of its own making: the remote sources ask only what the heir typed.
import { AppError } from '../shared/app-error'
import { shownTime } from '../vault-format'
import { droppedFiles, type LocalFile, localSource, vaultFiles } from './local-source'
import { checkKit, type KitCheck, keyFromKits, kitsSummary } from './page-kits'
import { type PageFileResult, type PageRun, type PageWriter, recoverInPage } from './page-recovery'
import { reportHeadline } from './page-report'
import type { PageSource } from './page-source'
import { PAGE_TEXTS, type PageText, pageLanguage } from './page-text'
import {
  canWriteFolders,
  type DirectoryHandleLike,
  DOWNLOAD_LIMIT_BYTES,
  downloadWriter,
  folderWriter,
} from './page-writer'
import { qrFromCamera, qrFromImage } from './qr-reader'
import { arweaveSource, serviceSource } from './remote-sources'

type SourceKind = 'files' | 'service' | 'arweave'

interface Kit {
  id: number
  text: string
  check?: KitCheck
  /** A photo or camera problem. */
  problem?: string
}

const state = {
  language: pageLanguage(navigator.languages?.length ? navigator.languages : [navigator.language]),
  source: 'files' as SourceKind,
  files: [] as LocalFile[],
  serviceUrl: '',
  accessToken: '',
  vaultId: '',
  gatewayUrl: 'https://arweave.net',
  kits: [{ id: 1, text: '' }] as Kit[],
  busy: false,
  error: undefined as string | undefined,
  errorDetail: undefined as string | undefined,
  run: undefined as (PageRun & { folder?: string; mbps?: number; setAside: string[] }) | undefined,
  camera: undefined as { kitId: number; stop: AbortController } | undefined,
}
let nextKitId = 2
let running: AbortController | undefined

const t = (): PageText => PAGE_TEXTS[state.language]

// ---- a small DOM builder ----

type Child = Node | string | false | null | undefined
function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Record<string, unknown> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag)
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === false) continue
    if (name.startsWith('on') && typeof value === 'function')
      element.addEventListener(name.slice(2), value as EventListener)
    else if (name === 'value' || (name in element && typeof value !== 'string'))
      (element as unknown as Record<string, unknown>)[name] = value
    else element.setAttribute(name, value === true ? '' : String(value))
  }
  for (const child of children) if (child) element.append(child)
  return element
}

// ---- kits ----

function checkKitText(kit: Kit): void {
  kit.problem = undefined
  kit.check = kit.text.trim() ? checkKit(kit.text, t()) : undefined
  // The kit names its vault: the vault id need not be copied from the e-mail.
  if (kit.check?.ok && !state.vaultId.trim()) state.vaultId = kit.check.vaultId
}

async function kitFromPhoto(kit: Kit, file: File | undefined): Promise<void> {
  if (!file) return
  try {
    kit.text = await qrFromImage(file, t())
    checkKitText(kit)
  } catch (error) {
    kit.problem = (error as Error).message
  }
  render()
}

async function kitFromCamera(kit: Kit): Promise<void> {
  state.camera?.stop.abort()
  const stop = new AbortController()
  state.camera = { kitId: kit.id, stop }
  render()
  const video = document.querySelector<HTMLVideoElement>('#camera')
  if (!video) return
  try {
    kit.text = await qrFromCamera(video, stop.signal, t())
    checkKitText(kit)
  } catch (error) {
    if (!stop.signal.aborted) kit.problem = (error as Error).message
  } finally {
    if (state.camera?.stop === stop) state.camera = undefined
  }
  render()
}

// ---- the run ----

function chosenSource(): PageSource | string {
  const words = t()
  if (state.source === 'files') {
    if (vaultFiles(state.files).length === 0)
      return state.files.length > 0 ? words.noVaultFiles : words.missingSource
    return localSource(state.files, (n) => `${n}`)
  }
  if (state.source === 'service') {
    if (!state.serviceUrl.trim() || !state.accessToken.trim()) return words.missingSource
    return serviceSource({
      serviceUrl: state.serviceUrl.trim(),
      accessToken: state.accessToken.trim(),
      vaultId: state.vaultId.trim(),
      language: state.language,
    })
  }
  if (!state.gatewayUrl.trim()) return words.missingSource
  return arweaveSource({
    gatewayUrl: state.gatewayUrl.trim(),
    vaultId: state.vaultId.trim(),
    language: state.language,
  })
}

async function recover(): Promise<void> {
  const words = t()
  state.error = undefined
  state.errorDetail = undefined
  const checks = state.kits.map((k) => k.check).filter((c): c is KitCheck => Boolean(c))
  if (!kitsSummary(checks, words).enough) {
    state.error = words.missingKits
    return render()
  }
  const source = chosenSource()
  if (typeof source === 'string') {
    state.error = source
    return render()
  }
  // The folder first, while the click still counts as the heir's (the picker needs it).
  let writer: PageWriter
  let folder: string | undefined
  if (canWriteFolders()) {
    try {
      const picker = (
        globalThis as unknown as { showDirectoryPicker: (o: object) => Promise<DirectoryHandleLike> }
      ).showDirectoryPicker
      const root = await picker({ mode: 'readwrite', id: 'vault-recovery' })
      writer = folderWriter(root, words)
      folder = root.name
    } catch (error) {
      state.error =
        (error as { name?: string }).name === 'AbortError'
          ? words.pickerCancelled
          : words.writeFailed('', (error as Error).message)
      return render()
    }
  } else {
    writer = downloadWriter(words)
  }
  running = new AbortController()
  const signal = running.signal
  state.busy = true
  state.run = undefined
  render()
  const started = performance.now()
  try {
    const key = await keyFromKits(state.kits.filter((k) => k.check?.ok).map((k) => k.text))
    if (!state.vaultId.trim()) state.vaultId = key.vaultId
    if (state.source !== 'files' && state.vaultId.trim() !== key.vaultId) {
      state.error = words.otherVault(key.vaultId, state.vaultId.trim())
      return
    }
    // A vault id typed for a remote source must be the kits' vault: they would open nothing else.
    const remote = state.source === 'files' ? source : (chosenSource() as PageSource)
    const blobs = await remote.list(signal)
    if (blobs.length === 0)
      throw Object.assign(new Error(words.noSourceFiles), { userMessage: words.noSourceFiles })
    const run = await recoverInPage({
      blobs,
      vaultKey: key.vaultKey,
      vaultId: key.vaultId,
      writer,
      signal,
      words,
      onProgress: (p) =>
        showProgress(
          p.phase === 'survey' ? words.surveying(p.fileNumber, p.fileCount) : words.writing(p.label),
          p.bytesDone,
          p.bytesTotal,
        ),
    })
    const bytes = run.results.reduce((sum, r) => sum + (r.status === 'recovered' ? (r.bytes ?? 0) : 0), 0)
    const seconds = (performance.now() - started) / 1000
    // A pace says something only over a sizeable amount (below, it is mostly the time to read the kits).
    const mbps = bytes >= 50e6 ? bytes / 1e6 / Math.max(seconds, 0.001) : undefined
    state.run = { ...run, folder, ...(mbps !== undefined ? { mbps } : {}), setAside: key.setAside }
  } catch (error) {
    if (signal.aborted) {
      state.error = words.stopped
    } else {
      state.error =
        error instanceof AppError ? error.userMessage : error instanceof Error ? error.message : String(error)
    }
  } finally {
    state.busy = false
    running = undefined
    render()
  }
}

function showProgress(label: string, done: number, total: number): void {
  const bar = document.querySelector<HTMLProgressElement>('#progress-bar')
  const text = document.querySelector<HTMLElement>('#progress-text')
  if (bar) {
    bar.max = Math.max(total, 1)
    bar.value = done
  }
  if (text) text.textContent = label
}

// ---- rendering ----

function radio(kind: SourceKind, label: string, note: string): HTMLElement {
  return h(
    'label',
    { class: `choice${state.source === kind ? ' chosen' : ''}` },
    h('input', {
      type: 'radio',
      name: 'source',
      value: kind,
      checked: state.source === kind,
      disabled: state.busy,
      onchange: () => {
        state.source = kind
        state.error = undefined
        render()
      },
    }),
    h('span', {}, h('strong', {}, label), h('br'), h('small', {}, note)),
  )
}

function field(
  id: string,
  label: string,
  value: string,
  set: (v: string) => void,
  extra: Record<string, unknown> = {},
): HTMLElement {
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    h('input', {
      id,
      value,
      autocomplete: 'off',
      spellcheck: 'false',
      disabled: state.busy,
      oninput: (e: Event) => set((e.target as HTMLInputElement).value),
      ...extra,
    }),
  )
}

function filesPanel(words: PageText): HTMLElement {
  const take = (list: FileList | null) => {
    state.files = [...state.files, ...Array.from(list ?? []).map(asLocal)]
    state.error = undefined
    render()
  }
  const chosen = vaultFiles(state.files)
  const zone = h(
    'div',
    {
      class: 'drop',
      ondragover: (e: DragEvent) => e.preventDefault(),
      ondrop: async (e: DragEvent) => {
        e.preventDefault()
        if (e.dataTransfer) {
          state.files = [...state.files, ...(await droppedFiles(e.dataTransfer.items))]
          render()
        }
      },
    },
    h(
      'label',
      { class: 'button' },
      words.chooseFiles,
      h('input', {
        type: 'file',
        multiple: true,
        id: 'pick-files',
        class: 'hidden-input',
        disabled: state.busy,
        onchange: (e: Event) => take((e.target as HTMLInputElement).files),
      }),
    ),
    h(
      'label',
      { class: 'button' },
      words.chooseFolder,
      h('input', {
        type: 'file',
        webkitdirectory: true,
        id: 'pick-folder',
        class: 'hidden-input',
        disabled: state.busy,
        onchange: (e: Event) => take((e.target as HTMLInputElement).files),
      }),
    ),
    h('small', {}, words.dropHere),
  )
  return h(
    'div',
    {},
    zone,
    state.files.length > 0 &&
      h(
        'p',
        { class: chosen.length ? 'ok' : 'warn', id: 'files-chosen' },
        chosen.length
          ? words.filesChosen(
              chosen.length,
              chosen.reduce((s, f) => s + f.size, 0),
            )
          : words.noVaultFiles,
      ),
  )
}

function asLocal(file: File): LocalFile {
  return {
    name: file.name,
    size: file.size,
    lastModified: file.lastModified,
    webkitRelativePath: file.webkitRelativePath,
    stream: () => file.stream() as ReadableStream<Uint8Array>,
  }
}

function kitBlock(kit: Kit, index: number, words: PageText): HTMLElement {
  const id = `kit-${kit.id}`
  const check = kit.check
  return h(
    'div',
    { class: 'kit' },
    h('label', { for: id }, words.kit(index + 1)),
    h('textarea', {
      id,
      rows: 4,
      placeholder: words.kitPlaceholder,
      autocomplete: 'off',
      autocapitalize: 'none',
      spellcheck: 'false',
      disabled: state.busy,
      value: kit.text,
      oninput: (e: Event) => {
        kit.text = (e.target as HTMLTextAreaElement).value
      },
      onchange: () => {
        checkKitText(kit)
        render()
      },
    }),
    h(
      'div',
      { class: 'row' },
      h(
        'label',
        { class: 'button small' },
        words.readPhoto,
        h('input', {
          type: 'file',
          accept: 'image/*',
          class: 'hidden-input',
          'aria-label': `${words.readPhoto} (${words.kit(index + 1)})`,
          disabled: state.busy,
          onchange: (e: Event) => kitFromPhoto(kit, (e.target as HTMLInputElement).files?.[0]),
        }),
      ),
      state.camera?.kitId === kit.id
        ? h(
            'button',
            { type: 'button', class: 'small', onclick: () => state.camera?.stop.abort() },
            words.stopCamera,
          )
        : h(
            'button',
            { type: 'button', class: 'small', disabled: state.busy, onclick: () => kitFromCamera(kit) },
            words.readCamera,
          ),
      state.kits.length > 1 &&
        h(
          'button',
          {
            type: 'button',
            class: 'small quiet',
            disabled: state.busy,
            onclick: () => {
              state.kits = state.kits.filter((k) => k !== kit)
              render()
            },
          },
          words.remove,
        ),
    ),
    state.camera?.kitId === kit.id &&
      h(
        'div',
        {},
        h('small', {}, words.cameraNote),
        h('video', { id: 'camera', muted: true, playsinline: true }),
      ),
    kit.problem && h('p', { class: 'bad', role: 'alert' }, kit.problem),
    check &&
      (check.ok
        ? h('p', { class: 'ok' }, `✓ ${check.message}`)
        : h(
            'p',
            { class: 'bad', role: 'alert' },
            check.message,
            ' ',
            check.detail ? h('span', { lang: 'en' }, check.detail) : '',
          )),
  )
}

function statusWord(result: PageFileResult, words: PageText): string {
  return words.status[result.status] ?? result.status
}

function report(run: NonNullable<typeof state.run>, words: PageText): HTMLElement {
  const r = run.results
  const n = (s: string) => r.filter((x) => x.status === s).length
  const recovered = n('recovered')
  const headline = reportHeadline(run, words)
  const counts = {
    recovered,
    damaged: n('damaged'),
    missing: n('missing'),
    superseded: n('superseded'),
    newer: n('newer'),
  }
  const other = n('failed') + n('skipped')
  const m = run.manifest
  return h(
    'section',
    { id: 'report', 'aria-live': 'polite' },
    h('h2', {}, words.reportTitle),
    h('p', { class: headline.ok ? 'ok big' : 'warn big', id: 'report-summary' }, headline.text),
    h('p', { id: 'report-counts' }, words.counts(counts), other > 0 ? ` ${words.notWritten(other)}` : ''),
    run.folder && recovered > 0 && h('p', {}, words.finishedIn(run.folder), ' ', words.openNote),
    h(
      'p',
      { class: m && m.rivals.length === 0 ? '' : 'warn' },
      m ? words.manifestFound(m.sequence, shownTime(m.writtenAtMs), m.listed) : words.manifestNone,
      m && m.rivals.length > 0 ? ` ${words.manifestRivals(m.rivals.length)}` : '',
      !m && run.manifestExpected ? ` ${words.manifestLost}` : '',
    ),
    run.setAside.length > 0 &&
      h(
        'div',
        {},
        h('p', {}, words.kitsSetAside),
        h('ul', {}, ...run.setAside.map((s) => h('li', { lang: 'en' }, s))),
      ),
    h(
      'ul',
      { class: 'results', id: 'results' },
      ...r.map((result) =>
        h(
          'li',
          {
            class:
              result.status === 'recovered'
                ? result.olderCopy
                  ? 'warn'
                  : 'ok'
                : result.status === 'superseded'
                  ? ''
                  : 'bad',
            'data-status': result.status,
          },
          h('strong', {}, result.entry ?? result.output),
          `: ${statusWord(result, words)}`,
          result.label && result.entry && result.label !== result.entry
            ? h('small', {}, ` (${result.label})`)
            : '',
          result.message ? h('small', { lang: 'en', class: 'detail' }, ` ${result.message}`) : '',
          result.download
            ? h(
                'a',
                { class: 'button small', href: result.download.url, download: result.download.name },
                words.download,
              )
            : '',
        ),
      ),
    ),
    run.mbps !== undefined &&
      recovered > 0 &&
      h('p', { class: 'muted', id: 'speed', 'data-mbps': run.mbps.toFixed(1) }, words.speed(run.mbps)),
  )
}

function render(): void {
  const words = t()
  document.documentElement.lang = words.htmlLang
  document.title = words.title
  const checks = state.kits.map((k) => k.check).filter((c): c is KitCheck => Boolean(c))
  const summary = kitsSummary(checks, words)
  const folders = canWriteFolders()
  const app = h(
    'main',
    { id: 'app' },
    h(
      'header',
      {},
      h('h1', {}, words.title),
      h(
        'button',
        {
          type: 'button',
          class: 'quiet',
          id: 'language',
          lang: state.language === 'en' ? 'es' : 'en',
          'aria-label': words.languageLabel,
          onclick: () => {
            state.language = state.language === 'en' ? 'es' : 'en'
            for (const kit of state.kits) if (kit.text.trim()) checkKitText(kit)
            render()
          },
        },
        words.language,
      ),
    ),
    h('p', { class: 'lead' }, words.lead),
    h(
      'section',
      {},
      h('h2', {}, words.sourceStep),
      h(
        'fieldset',
        {},
        h('legend', { class: 'sr' }, words.sourceStep),
        radio('files', words.sourceFiles, words.sourceFilesNote),
        radio('service', words.sourceService, words.sourceServiceNote),
        radio('arweave', words.sourceArweave, words.sourceArweaveNote),
      ),
      state.source === 'files' && filesPanel(words),
      state.source === 'service' &&
        h(
          'div',
          {},
          field(
            'service-url',
            words.serviceAddress,
            state.serviceUrl,
            (v) => {
              state.serviceUrl = v
            },
            { placeholder: 'https://…', inputmode: 'url' },
          ),
          field(
            'access-token',
            words.accessToken,
            state.accessToken,
            (v) => {
              state.accessToken = v
            },
            { placeholder: 'hk_…' },
          ),
          field('vault-id', words.vaultId, state.vaultId, (v) => {
            state.vaultId = v
          }),
        ),
      state.source === 'arweave' &&
        h(
          'div',
          {},
          field(
            'gateway-url',
            words.gateway,
            state.gatewayUrl,
            (v) => {
              state.gatewayUrl = v
            },
            { inputmode: 'url' },
          ),
          field('vault-id', words.vaultId, state.vaultId, (v) => {
            state.vaultId = v
          }),
        ),
    ),
    h(
      'section',
      {},
      h('h2', {}, words.kitsStep),
      h('p', { class: 'muted' }, words.kitsStepNote),
      ...state.kits.map((kit, i) => kitBlock(kit, i, words)),
      h(
        'button',
        {
          type: 'button',
          disabled: state.busy,
          onclick: () => {
            state.kits.push({ id: nextKitId++, text: '' })
            render()
            document.querySelector<HTMLTextAreaElement>(`#kit-${nextKitId - 1}`)?.focus()
          },
        },
        words.addKit,
      ),
      h('p', { class: summary.enough ? 'ok' : 'muted', id: 'kits-summary' }, summary.note),
      summary.warning && h('p', { class: 'warn' }, summary.warning),
    ),
    h(
      'section',
      {},
      h('h2', {}, words.saveStep),
      h(
        'p',
        { class: folders ? 'muted' : 'warn' },
        folders ? words.saveToFolder : words.saveAsDownloads(DOWNLOAD_LIMIT_BYTES),
      ),
      h(
        'div',
        { class: 'row' },
        h(
          'button',
          {
            type: 'button',
            class: 'primary',
            id: 'recover',
            disabled: state.busy,
            onclick: () => void recover(),
          },
          folders ? words.recover : words.recoverDownloads,
        ),
        state.busy &&
          h(
            'button',
            {
              type: 'button',
              id: 'cancel',
              onclick: () => running?.abort(new DOMException('Stopped', 'AbortError')),
            },
            words.cancel,
          ),
      ),
      state.busy &&
        h(
          'div',
          { class: 'progress' },
          h('progress', { id: 'progress-bar', 'aria-label': words.progress }),
          h('p', { id: 'progress-text', class: 'muted' }),
        ),
      state.error &&
        h(
          'p',
          { class: 'bad', role: 'alert', id: 'error' },
          state.error,
          state.errorDetail ? h('span', { lang: 'en' }, ` ${state.errorDetail}`) : '',
        ),
    ),
    state.run && report(state.run, words),
  )
  const focused = document.activeElement?.id
  document.querySelector('#app')?.replaceWith(app)
  if (!document.querySelector('#app')) document.body.append(app)
  if (focused) document.getElementById(focused)?.focus()
}

render()
document.body.dataset.ready = 'true'
