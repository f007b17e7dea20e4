import { type FormEvent, useEffect, useState } from 'react'
import type {
  HeirVaultFiles,
  RecoveryProgress,
  RecoveryReport,
  ShareCheck,
} from '../../shared/ipc/vault-types'
import { vault } from '../bridge/vault-client'
import { ErrorNotice } from '../components/ErrorNotice'
import { decodeQrFromFile } from '../display/qr-image'
import { formatBytes } from '../display/units'
import { useSettingsStore } from '../stores/settings-store'

interface ShareEntry {
  id: number
  text: string
  check?: ShareCheck
  error?: unknown
}

/** Where the encrypted files come from: the vault service (heir e-mail) or files on this computer. */
type Source = 'service' | 'files'

let nextShareId = 1

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`
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
  const [error, setError] = useState<unknown>()

  useEffect(() => vault().on.recoveryProgress(setProgress), [])

  const valid = shares.filter((s) => s.check?.ok)
  const threshold = valid[0]?.check?.threshold
  const total = valid[0]?.check?.shares
  const perSet = new Map<string | undefined, number>()
  for (const s of valid) perSet.set(s.check?.splitId, (perSet.get(s.check?.splitId) ?? 0) + 1)
  const mixedSets = perSet.size > 1
  // As the recovery combines them: one set with enough kits is enough; the others are left out.
  const enough = !!threshold && [...perSet.values()].some((count) => count >= threshold)

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
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }

  const haveSource = source === 'service' ? !!serviceUrl.trim() && !!accessToken.trim() : !!inputs.trim()
  const missingText = !haveSource
    ? source === 'service'
      ? 'Fill in the service address and access code from the e-mail (step 1).'
      : 'Say where the encrypted files are (step 1).'
    : !enough
      ? 'Enter enough guardians’ kits first (step 2).'
      : !outputDir.trim()
        ? 'Say where to save the files (step 3).'
        : null
  const recovered = report?.results.filter((r) => r.ok).length ?? 0
  // Older copies of files whose newer copy was recovered: listed, but neither counted nor failures.
  const counted = report?.results.filter((r) => r.status !== 'superseded') ?? []

  return (
    <section className="screen recovery" aria-labelledby="recovery-title">
      <header className="screen-header">
        <h1 id="recovery-title">Recovery</h1>
      </header>
      <p className="lead">
        If someone named you as an heir, you can open their files here. You need the e-mail you received and
        the kits of enough of their guardians. Nothing here is urgent and nothing you do here can harm the
        files: take your time, and ask someone to sit with you if that helps.
      </p>

      <fieldset className="radio-cards compact">
        <legend>Where are the files?</legend>
        <label className={`radio-card${source === 'service' ? ' selected' : ''}`}>
          <input
            type="radio"
            name="source"
            checked={source === 'service'}
            onChange={() => setSource('service')}
          />
          <span>
            <strong>I received an e-mail with an access code</strong>
            <span className="muted">
              The files are downloaded from the vault service named in the e-mail.
            </span>
          </span>
        </label>
        <label className={`radio-card${source === 'files' ? ' selected' : ''}`}>
          <input
            type="radio"
            name="source"
            checked={source === 'files'}
            onChange={() => setSource('files')}
          />
          <span>
            <strong>I have the encrypted files on this computer</strong>
            <span className="muted">Files whose names end in .vault, from a backup or a download.</span>
          </span>
        </label>
      </fieldset>

      {source === 'service' ? (
        <form className="panel" onSubmit={showFiles} aria-labelledby="step-email">
          <h2 id="step-email">1. Copy three things from the e-mail</h2>
          <p className="muted">
            The e-mail's subject starts with “You have been given access”. Copy each item exactly; spaces
            before or after do not matter.
          </p>
          <div className="field" style={{ marginBottom: 12 }}>
            <label htmlFor="heir-service">Vault Service address</label>
            <input
              id="heir-service"
              type="url"
              value={serviceUrl}
              placeholder="https://…"
              spellCheck={false}
              onChange={(e) => setServiceUrl(e.target.value)}
            />
          </div>
          <div className="field" style={{ marginBottom: 12 }}>
            <label htmlFor="heir-token">Your personal access token (starts with hk_)</label>
            <input
              id="heir-token"
              type="text"
              value={accessToken}
              placeholder="hk_…"
              spellCheck={false}
              autoComplete="off"
              onChange={(e) => setAccessToken(e.target.value)}
            />
          </div>
          <div className="field" style={{ marginBottom: 12 }}>
            <label htmlFor="heir-vault">Vault id (filled in for you when you enter a guardian's kit)</label>
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
              {listingBusy ? 'Looking…' : 'Show the files'}
            </button>
            <span className="muted small">Optional: see what the vault holds before you start.</span>
          </div>
          {listError !== undefined && <ErrorNotice error={listError} />}
          {listing && (
            <div className="panel inset" data-testid="heir-files">
              <h3>
                The vault holds{' '}
                {plural(
                  listing.files.reduce((sum, f) => sum + (f.fileCount ?? 1), 0),
                  'file',
                )}{' '}
                ({formatBytes(listing.totalBytes)} in total)
              </h3>
              <ul className="plain-list file-list">
                {listing.files.map((f) => (
                  <li key={f.assetId}>
                    <span className="file-name">{f.name}</span>{' '}
                    <span className="muted small">{formatBytes(f.plaintextBytes)}</span>
                  </li>
                ))}
              </ul>
              <p className="muted small">They are locked until enough guardians' kits are entered below.</p>
            </div>
          )}
        </form>
      ) : (
        <div className="panel">
          <h2>1. Choose the encrypted files</h2>
          <label htmlFor="recovery-inputs">Encrypted files or folders (one full path per line)</label>
          <textarea
            id="recovery-inputs"
            rows={3}
            value={inputs}
            onChange={(e) => setInputs(e.target.value)}
            spellCheck={false}
          />
          {mode === 'electron' && (
            <button type="button" className="button secondary small" onClick={() => void pick('files')}>
              Choose files…
            </button>
          )}
        </div>
      )}

      <div className="panel">
        <h2>2. Enter the guardians' kits</h2>
        <p className="muted">
          Each guardian was given a printed kit with a list of words and a square barcode. Type or paste the
          words (capital letters and extra spaces do not matter), or choose a photo of the barcode. The kits
          stay on this computer; nothing is sent anywhere.
        </p>
        <p className="share-count" role="status" data-testid="share-count">
          {!threshold
            ? valid.length === 0
              ? 'No kits entered yet.'
              : `${plural(valid.length, 'kit')} entered.`
            : valid.length >= threshold
              ? `${plural(valid.length, 'kit')} entered — enough to open the files (${threshold} of ${total} needed).`
              : `${plural(valid.length, 'kit')} entered — ${threshold} of ${total} needed. Ask ${threshold - valid.length === 1 ? 'one more guardian' : `${threshold - valid.length} more guardians`} for their kit.`}
        </p>
        {mixedSets && enough && (
          <div className="notice notice-warn" data-testid="kits-mixed-sets">
            <p>
              Some kits come from another set (the owner made new kits at some point). They will be left out:
              the kits of the set you have enough of are what open the files.
            </p>
          </div>
        )}
        {mixedSets && !enough && (
          <div className="notice notice-warn" role="alert">
            <p>
              These kits come from different sets. The owner made new kits at some point (for example after
              changing guardians), and old and new kits do not fit together. Ask the guardians for their
              newest kit: the set is printed on each kit, and all kits used together must show the same set.
            </p>
          </div>
        )}
        {shares.map((s, index) => (
          <div key={s.id} className="share-entry">
            <label htmlFor={`share-${s.id}`}>Kit {index + 1}</label>
            <textarea
              id={`share-${s.id}`}
              rows={5}
              value={s.text}
              spellCheck={false}
              onChange={(e) => update(s.id, { text: e.target.value, check: undefined })}
              onBlur={(e) => void check(s.id, e.target.value)}
              placeholder="The words from the kit, in order"
            />
            <div className="row">
              <label className="button secondary small file-button">
                Read the barcode from a photo…
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
                  Remove
                </button>
              )}
              {s.check && (
                <span className={s.check.ok ? 'text-ok small' : 'text-danger small'}>
                  {s.check.ok ? '✓ ' : ''}
                  {s.check.message}
                </span>
              )}
            </div>
            {s.error !== undefined && <ErrorNotice error={s.error} />}
          </div>
        ))}
        <button
          type="button"
          className="button secondary"
          onClick={() => setShares((list) => [...list, { id: nextShareId++, text: '' }])}
        >
          Add another kit
        </button>
      </div>

      <form className="panel" onSubmit={recover}>
        <h2>3. Choose where to save the files</h2>
        <label htmlFor="recovery-output">Folder for the recovered files</label>
        <div className="row">
          <input
            id="recovery-output"
            type="text"
            value={outputDir}
            placeholder="For example /home/you/Documents/Recovered files"
            onChange={(e) => setOutputDir(e.target.value)}
            spellCheck={false}
          />
          {mode === 'electron' && (
            <button
              type="button"
              className="button secondary small"
              onClick={() => void pick('output-folder')}
            >
              Choose…
            </button>
          )}
        </div>
        <p className="muted small">
          A new folder is made if needed. Files already there are never replaced. If the recovery is
          interrupted, start it again with the same folder: it continues where it stopped.
        </p>
        <div className="row">
          <button type="submit" className="button" disabled={busy || missingText !== null}>
            {busy
              ? 'Recovering…'
              : report?.stopped
                ? 'Continue where it stopped'
                : source === 'service'
                  ? 'Recover the files'
                  : 'Verify and decrypt'}
          </button>
          {missingText && <span className="muted small">{missingText}</span>}
        </div>
        {busy && progress && (
          <div role="status">
            <progress
              max={progress.totalBytes || 1}
              value={progress.doneBytes}
              aria-label="Recovery progress"
            />
            <span className="muted small">
              File {Math.min(progress.filesDone + 1, progress.filesTotal)} of {progress.filesTotal} ·{' '}
              {progress.input}
            </span>
          </div>
        )}
        {error !== undefined && <ErrorNotice error={error} />}
        {report && (
          <div className="panel inset" data-testid="recovery-report">
            {report.rehearsal && (
              <div
                className={`notice ${report.rehearsal.passed ? 'notice-ok' : 'notice-warn'}`}
                data-testid="rehearsal-result"
              >
                <p>
                  <strong>
                    {report.rehearsal.passed
                      ? 'Practice passed: the kits work.'
                      : 'Practice not confirmed by the service.'}
                  </strong>{' '}
                  {report.rehearsal.message}
                </p>
                <p>This was a practice run: nothing was released.</p>
              </div>
            )}
            {report.kitsSetAside && (
              <div className="notice notice-warn" data-testid="kits-set-aside">
                <p>
                  <strong>
                    The other kits were enough, so{' '}
                    {report.kitsSetAside.length === 1 ? 'one kit was' : 'some kits were'} left out:
                  </strong>
                </p>
                <ul>
                  {report.kitsSetAside.map((reason) => (
                    <li key={reason}>{reason}</li>
                  ))}
                </ul>
              </div>
            )}
            {report.stopped && (
              <div className="notice notice-error" role="alert" data-code={report.stopped.code}>
                <p>{report.stopped.message}</p>
              </div>
            )}
            {counted.length > 0 && (
              <h3>
                {recovered === counted.length
                  ? `All ${plural(recovered, 'file')} recovered and checked.`
                  : `${recovered} of ${plural(counted.length, 'file')} recovered${report.stopped ? ' so far' : ''}.`}
                {recovered > 0 && ` They are in ${report.outputDir}.`}
              </h3>
            )}
            {recovered > 0 && (
              <p className="muted">
                They open like any other files. Keep the guardians' kits until you are sure you have
                everything.
              </p>
            )}
            <ul className="plain-list" style={{ listStyle: 'none', paddingLeft: 0 }}>
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
                  <strong>{r.input}</strong>
                  {source === 'files' && r.output ? ` → ${r.output}` : ''}: {r.message}
                </li>
              ))}
            </ul>
          </div>
        )}
      </form>
    </section>
  )
}
