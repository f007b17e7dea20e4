import { type FormEvent, type ReactNode, useEffect, useRef, useState } from 'react'
import type {
  HeirVaultFiles,
  RecoveryFileResult,
  RecoveryProgress,
  RecoveryReport,
  ShareCheck,
} from '../../shared/ipc/vault-types'
import { isolateName } from '../../shared/untrusted-text'
import { vault } from '../bridge/vault-client'
import { ErrorNotice } from '../components/ErrorNotice'
import { KitCheckPanel } from '../components/KitCheckPanel'
import { RadioCards } from '../components/RadioCards'
import { UntrustedName, UntrustedSentence } from '../components/UntrustedName'
import { decodeQrFromFile } from '../display/qr-image'
import { useSettingsStore } from '../stores/settings-store'
import { coreLang, format, langOf, text } from '../text'

const t = text.recovery

interface ShareEntry {
  id: number
  text: string
  check?: ShareCheck
  error?: unknown
}

/** Where the encrypted files come from: the vault service (heir e-mail) or files on this computer. */
type Source = 'service' | 'files'

let nextShareId = 1

/** A kit as the check read it: in the window's words when its parts are known, else the core's sentence. */
function KitCheck({ check }: { check: ShareCheck }) {
  if (!check.ok) {
    return (
      <span className="text-danger small">
        {t.kitNotRead} <span lang={coreLang}>{check.message}</span>
      </span>
    )
  }
  if (check.practiceUntil && check.shareIndex && check.shares) {
    return (
      <span className="text-ok small" data-testid="kit-practice">
        ✓ {t.kitReadPractice(check.shareIndex, check.shares, check.practiceUntil)}
      </span>
    )
  }
  const parts = check.shareIndex && check.shares && check.vaultFingerprint && check.splitId
  return (
    <span className="text-ok small">
      ✓{' '}
      {parts ? (
        t.kitRead(check.shareIndex!, check.shares!, check.vaultFingerprint!, check.splitId!)
      ) : (
        <span lang={coreLang}>{check.message}</span>
      )}
    </span>
  )
}

/**
 * One file's outcome. The app core explains it in English: shown whole when the window is in English;
 * in a translation, the outcome in the window's words, with the English detail where it says why.
 */
function FileOutcome({ result }: { result: RecoveryFileResult }) {
  if (!coreLang || !result.status) {
    return (
      <span lang={coreLang}>
        <UntrustedSentence text={result.message} />
      </span>
    )
  }
  const status = t.fileStatus[result.status]
  if (result.status === 'recovered' || result.status === 'kept') return <>{status}</>
  return (
    <>
      {status} (
      <span lang={coreLang}>
        <UntrustedSentence text={result.message} />
      </span>
      )
    </>
  )
}

/** Past this many files, the list of outcomes is folded under its summary (the problems stay above it). */
const RESULTS_SHOWN_OPEN = 20

/** The outcome per file: open when short, folded behind "Show all N files" when long. */
function ResultList({ count, children }: { count: number; children: ReactNode }) {
  const list = (
    <ul className="plain-list" style={{ listStyle: 'none', paddingLeft: 0 }}>
      {children}
    </ul>
  )
  if (count <= RESULTS_SHOWN_OPEN) return list
  return (
    <details data-testid="recovery-results-folded">
      <summary>{t.showAllResults(count)}</summary>
      {list}
    </details>
  )
}

export function RecoveryScreen() {
  const mode = useSettingsStore((s) => s.appInfo?.mode)
  const [source, setSource] = useState<Source>('service')
  const [serviceUrl, setServiceUrl] = useState('')
  const [accessToken, setAccessToken] = useState('')
  const [vaultId, setVaultId] = useState('')
  const [listing, setListing] = useState<HeirVaultFiles>()
  const [listError, setListError] = useState<unknown>()
  const [listingBusy, setListingBusy] = useState(false)
  const [shares, setShares] = useState<ShareEntry[]>([{ id: nextShareId++, text: '' }])
  const [inputs, setInputs] = useState('')
  const [outputDir, setOutputDir] = useState('')
  const [busy, setBusy] = useState(false)
  const [progress, setProgress] = useState<RecoveryProgress>()
  const [report, setReport] = useState<RecoveryReport>()
  const reportRef = useRef<HTMLDivElement>(null)
  // The outcome is what the heir waited for: brought into view (and focus) when it arrives.
  useEffect(() => {
    if (!report) return
    reportRef.current?.scrollIntoView({ block: 'start', behavior: 'smooth' })
    reportRef.current?.focus({ preventScroll: true })
  }, [report])
  const [finishedAt, setFinishedAt] = useState<number>()
  const [error, setError] = useState<unknown>()

  useEffect(() => vault().on.recoveryProgress(setProgress), [])

  const valid = shares.filter((s) => s.check?.ok)
  const threshold = valid[0]?.check?.threshold
  const total = valid[0]?.check?.shares
  // Kits of another vault are not an older set of this one: named as such, as the command line does.
  const fingerprints = [...new Set(valid.map((s) => s.check?.vaultFingerprint).filter(Boolean))] as string[]
  const mixedVaults = fingerprints.length > 1
  const perSet = new Map<string | undefined, number>()
  for (const s of valid) perSet.set(s.check?.splitId, (perSet.get(s.check?.splitId) ?? 0) + 1)
  const mixedSets = !mixedVaults && perSet.size > 1
  // As the recovery combines them: one set with enough kits is enough; the others are left out.
  const enough = !mixedVaults && !!threshold && [...perSet.values()].some((count) => count >= threshold)
  // Practice kits make the whole run a practice: only the practice file, never the vault.
  const practice = source === 'service' && valid.some((s) => s.check?.practiceUntil)

  const update = (id: number, patch: Partial<ShareEntry>) =>
    setShares((list) => list.map((s) => (s.id === id ? { ...s, ...patch } : s)))

  const check = async (id: number, text: string) => {
    if (!text.trim()) return update(id, { check: undefined, error: undefined })
    try {
      const result = await vault().checkShare({ text })
      update(id, { check: result, error: undefined })
      // The kit names its vault: fill in the vault id for whoever has not copied it from the e-mail.
      if (result.ok && result.vaultId) setVaultId((current) => current.trim() || result.vaultId!)
    } catch (e) {
      update(id, { check: undefined, error: e })
    }
  }

  const fromImage = async (id: number, file: File | undefined) => {
    if (!file) return
    try {
      const text = await decodeQrFromFile(file)
      update(id, { text })
      await check(id, text)
    } catch (e) {
      update(id, { error: e })
    }
  }

  const pick = async (kind: 'files' | 'output-folder') => {
    try {
      const paths = await vault().pickPaths({ kind })
      if (kind === 'files') setInputs(paths.join('\n'))
      else setOutputDir(paths[0] ?? '')
    } catch (e) {
      setError(e)
    }
  }

  const showFiles = async (event: FormEvent) => {
    event.preventDefault()
    setListingBusy(true)
    setListError(undefined)
    setListing(undefined)
    try {
      setListing(
        await vault().listHeirFiles({
          serviceUrl: serviceUrl.trim(),
          accessToken: accessToken.trim(),
          vaultId: vaultId.trim(),
        }),
      )
    } catch (e) {
      setListError(e)
    } finally {
      setListingBusy(false)
    }
  }

  const recover = async (event: FormEvent) => {
    event.preventDefault()
    setBusy(true)
    setError(undefined)
    setReport(undefined)
    setFinishedAt(undefined)
    setProgress(undefined)
    try {
      const words = valid.map((s) => s.text)
      setReport(
        source === 'service'
          ? await vault().recoverFromService({
              serviceUrl: serviceUrl.trim(),
              accessToken: accessToken.trim(),
              ...(vaultId.trim() ? { vaultId: vaultId.trim() } : {}),
              shares: words,
              outputDir: outputDir.trim(),
            })
          : await vault().recoverFiles({
              shares: words,
              inputs: inputs
                .split('\n')
                .map((l) => l.trim())
                .filter(Boolean),
              outputDir: outputDir.trim(),
            }),
      )
      setFinishedAt(Date.now())
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }

  const haveSource = source === 'service' ? !!serviceUrl.trim() && !!accessToken.trim() : !!inputs.trim()
  const missingText = !haveSource
    ? source === 'service'
      ? t.missingService
      : t.missingFiles
    : mixedVaults
      ? t.missingKitsOneVault
      : !enough
        ? t.missingKits
        : !outputDir.trim()
          ? t.missingOutput
          : null
  const recovered = report?.results.filter((r) => r.ok).length ?? 0
  // Older copies of files whose newer copy was recovered: listed, but neither counted nor failures.
  const counted = report?.results.filter((r) => r.status !== 'superseded') ?? []

  return (
    <section className="screen recovery" aria-labelledby="recovery-title" lang={langOf('recovery')}>
      <header className="screen-header">
        <h1 id="recovery-title">{t.title}</h1>
      </header>
      <p className="lead">{t.lead}</p>

      <RadioCards<Source>
        legend={t.sourceLegend}
        name="source"
        options={[
          { value: 'service', label: t.sourceService, sentence: t.sourceServiceNote },
          { value: 'files', label: t.sourceFiles, sentence: t.sourceFilesNote },
        ]}
        value={source}
        onChange={setSource}
        compact
      />

      {source === 'service' ? (
        <form className="panel" onSubmit={showFiles} aria-labelledby="step-email">
          <h2 id="step-email">{t.emailStep}</h2>
          <p className="muted">{t.emailStepNote}</p>
          <div className="field" style={{ marginBottom: 12 }}>
            <label htmlFor="heir-service">{t.serviceAddress}</label>
            <input
              id="heir-service"
              type="text"
              inputMode="url"
              autoComplete="url"
              value={serviceUrl}
              placeholder={t.serviceAddressPlaceholder}
              spellCheck={false}
              onChange={(e) => setServiceUrl(e.target.value)}
            />
          </div>
          <div className="field" style={{ marginBottom: 12 }}>
            <label htmlFor="heir-token">{t.accessToken}</label>
            <input
              id="heir-token"
              type="text"
              value={accessToken}
              placeholder={t.accessTokenPlaceholder}
              spellCheck={false}
              autoComplete="off"
              onChange={(e) => setAccessToken(e.target.value)}
            />
          </div>
          <div className="field" style={{ marginBottom: 12 }}>
            <label htmlFor="heir-vault">{t.vaultId}</label>
            <input
              id="heir-vault"
              type="text"
              value={vaultId}
              spellCheck={false}
              onChange={(e) => setVaultId(e.target.value)}
            />
          </div>
          <div className="row">
            <button
              type="submit"
              className="button secondary"
              disabled={listingBusy || !serviceUrl.trim() || !accessToken.trim() || !vaultId.trim()}
            >
              {listingBusy ? t.looking : t.showFiles}
            </button>
            <span className="muted small">
              {serviceUrl.trim() && accessToken.trim() && !vaultId.trim()
                ? t.showFilesNeedsVaultId
                : t.showFilesNote}
            </span>
          </div>
          {listError !== undefined && <ErrorNotice error={listError} />}
          {listing?.practice && (
            <div className="panel inset" data-testid="heir-files">
              <h3>{t.practiceFiles}</h3>
              <ul className="plain-list file-list">
                {listing.files.map((f) => (
                  <li key={f.assetId}>
                    <span className="file-name">{f.name}</span>{' '}
                    <span className="muted small">{format.bytes(f.plaintextBytes)}</span>
                  </li>
                ))}
              </ul>
            </div>
          )}
          {listing && !listing.practice && (
            <div className="panel inset" data-testid="heir-files">
              <h3>
                {t.vaultHolds(
                  listing.files.reduce((sum, f) => sum + (f.fileCount ?? 1), 0),
                  format.bytes(listing.totalBytes),
                )}
              </h3>
              <ul className="plain-list file-list">
                {listing.files.map((f) => (
                  <li key={f.assetId}>
                    <UntrustedName name={f.name} className="file-name" />{' '}
                    <span className="muted small">{format.bytes(f.plaintextBytes)}</span>
                  </li>
                ))}
              </ul>
              {!enough && <p className="muted small">{t.lockedNote}</p>}
            </div>
          )}
        </form>
      ) : (
        <div className="panel">
          <h2>{t.filesStep}</h2>
          <label htmlFor="recovery-inputs">{t.inputs}</label>
          <textarea
            id="recovery-inputs"
            rows={3}
            value={inputs}
            onChange={(e) => setInputs(e.target.value)}
            spellCheck={false}
          />
          {mode === 'electron' && (
            <button type="button" className="button secondary small" onClick={() => void pick('files')}>
              {t.chooseFiles}
            </button>
          )}
        </div>
      )}

      <div className="panel">
        <h2>{t.kitsStep}</h2>
        <p className="muted">{t.kitsStepNote}</p>
        {practice && (
          <p className="notice notice-info" data-testid="practice-mode">
            {t.practiceMode}
          </p>
        )}
        <p className="share-count" role="status" data-testid="share-count">
          {!threshold
            ? valid.length === 0
              ? t.noKits
              : t.kitsEntered(valid.length)
            : mixedVaults
              ? t.kitsEntered(valid.length)
              : enough
                ? t.kitsEnough(valid.length, threshold, total ?? threshold)
                : t.kitsShort(Math.max(0, ...perSet.values()), threshold, total ?? threshold)}
        </p>
        {mixedVaults && (
          <div className="notice notice-warn" role="alert" data-testid="kits-mixed-vaults">
            <p>{t.mixedVaults(format.list(fingerprints.map(isolateName)))}</p>
          </div>
        )}
        {mixedSets && enough && (
          <div className="notice notice-warn" data-testid="kits-mixed-sets">
            <p>{t.mixedSetsEnough}</p>
          </div>
        )}
        {mixedSets && !enough && (
          <div className="notice notice-warn" role="alert">
            <p>{t.mixedSetsShort}</p>
          </div>
        )}
        {shares.map((s, index) => (
          <div key={s.id} className="share-entry">
            <label htmlFor={`share-${s.id}`}>{t.kit(index + 1)}</label>
            <textarea
              id={`share-${s.id}`}
              rows={5}
              value={s.text}
              spellCheck={false}
              onChange={(e) => update(s.id, { text: e.target.value, check: undefined })}
              onBlur={(e) => void check(s.id, e.target.value)}
              placeholder={t.kitPlaceholder}
            />
            <div className="row">
              <label className="button secondary small file-button">
                {t.readPhoto}
                <input
                  type="file"
                  accept="image/*"
                  className="visually-hidden"
                  onChange={(e) => void fromImage(s.id, e.target.files?.[0])}
                />
              </label>
              {shares.length > 1 && (
                <button
                  type="button"
                  className="link-button small"
                  onClick={() => setShares((list) => list.filter((x) => x.id !== s.id))}
                >
                  {t.remove}
                </button>
              )}
              {s.check && <KitCheck check={s.check} />}
            </div>
            {s.error !== undefined && <ErrorNotice error={s.error} />}
          </div>
        ))}
        <button
          type="button"
          className="button secondary"
          onClick={() => setShares((list) => [...list, { id: nextShareId++, text: '' }])}
        >
          {t.addKit}
        </button>
      </div>

      <form className="panel" onSubmit={recover}>
        <h2>{t.saveStep}</h2>
        <label htmlFor="recovery-output">{t.output}</label>
        <div className="row">
          <input
            id="recovery-output"
            type="text"
            value={outputDir}
            placeholder={t.outputPlaceholder}
            onChange={(e) => setOutputDir(e.target.value)}
            spellCheck={false}
          />
          {mode === 'electron' && (
            <button
              type="button"
              className="button secondary small"
              onClick={() => void pick('output-folder')}
            >
              {t.chooseFolder}
            </button>
          )}
        </div>
        <p className="muted small">{t.outputNote}</p>
        <div className="row">
          <button type="submit" className="button" disabled={busy || missingText !== null}>
            {busy
              ? t.recovering
              : report?.stopped
                ? t.continue
                : practice
                  ? t.recoverPractice
                  : source === 'service'
                    ? t.recoverFromService
                    : t.recoverFiles}
          </button>
          {missingText && <span className="muted small">{missingText}</span>}
        </div>
        {busy && progress && (
          <div role="status">
            <progress max={progress.totalBytes || 1} value={progress.doneBytes} aria-label={t.progress} />
            <span className="muted small">
              {t.progressFile(Math.min(progress.filesDone + 1, progress.filesTotal), progress.filesTotal)} ·{' '}
              {progress.input}
            </span>
          </div>
        )}
        {error !== undefined && <ErrorNotice error={error} />}
        {report && (
          <div className="panel inset" data-testid="recovery-report" ref={reportRef} tabIndex={-1}>
            {report.rehearsal && (
              <div
                className={`notice ${report.rehearsal.passed ? 'notice-ok' : 'notice-warn'}`}
                data-testid="rehearsal-result"
              >
                <p>
                  <strong>{report.rehearsal.passed ? t.practicePassed : t.practiceNotConfirmed}</strong>{' '}
                  <span lang={coreLang}>{report.rehearsal.message}</span>
                </p>
                <p>{t.practiceNote}</p>
              </div>
            )}
            {report.kitsSetAside && (
              <div className="notice notice-warn" data-testid="kits-set-aside">
                <p>
                  <strong>{t.kitsSetAside(report.kitsSetAside.length)}</strong>
                </p>
                <ul>
                  {report.kitsSetAside.map((reason) => (
                    <li key={reason} lang={coreLang}>
                      <UntrustedSentence text={reason} />
                    </li>
                  ))}
                </ul>
              </div>
            )}
            {report.stopped && (
              <div className="notice notice-error" role="alert" data-code={report.stopped.code}>
                <p>
                  <strong>{t.stopped}</strong>{' '}
                  <span lang={coreLang}>
                    <UntrustedSentence text={report.stopped.message} />
                  </span>
                </p>
              </div>
            )}
            {report.manifestNote && (
              <div
                className={`notice ${report.manifestWarning ? 'notice-warn' : 'notice-ok'}`}
                data-testid="manifest-note"
              >
                <p>
                  <strong>{report.manifestWarning ? t.manifestMissing : t.manifestUsed}</strong>{' '}
                  <span lang={coreLang}>
                    <UntrustedSentence text={report.manifestNote} />
                  </span>
                </p>
              </div>
            )}
            {counted.length > 0 && (
              <h3>
                {recovered === counted.length
                  ? t.allRecovered(recovered)
                  : report.stopped
                    ? t.someRecoveredSoFar(recovered, counted.length)
                    : t.someRecovered(recovered, counted.length)}
                {recovered > 0 && ` ${t.savedIn(recovered, report.outputDir)}`}
              </h3>
            )}
            {finishedAt !== undefined && (
              <p className="muted small" data-testid="recovery-finished">
                {t.finishedAt(finishedAt)}
              </p>
            )}
            {recovered > 0 && <p className="muted">{t.openNote}</p>}
            <ResultList count={report.results.length}>
              {report.results.map((r, i) => (
                <li
                  // biome-ignore lint/suspicious/noArrayIndexKey: a fixed list where older copies share a file's name
                  key={`${i}:${r.input}`}
                  className={
                    r.ok
                      ? 'text-ok'
                      : r.status === 'not-reached' || r.status === 'superseded'
                        ? 'muted'
                        : 'text-danger'
                  }
                >
                  {r.ok ? '✓' : r.status === 'not-reached' ? '…' : r.status === 'superseded' ? '–' : '✗'}{' '}
                  <strong>
                    <UntrustedName name={r.input} />
                  </strong>
                  {source === 'files' && r.output ? (
                    <>
                      {' → '}
                      <UntrustedName name={r.output} />
                    </>
                  ) : null}
                  : <FileOutcome result={r} />
                </li>
              ))}
            </ResultList>
          </div>
        )}
      </form>

      <KitCheckPanel />
    </section>
  )
}
