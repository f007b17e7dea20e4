import { type FormEvent, useEffect, useState } from 'react'
import type { RecoveryProgress, RecoveryReport, ShareCheck } from '../../shared/ipc/vault-types'
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

/** Where the encrypted files come from; heir access over the service will add a second source. */
type Source = 'files'

let nextShareId = 1

export function RecoveryScreen() {
  const mode = useSettingsStore((s) => s.appInfo?.mode)
  const [shares, setShares] = useState<ShareEntry[]>([{ id: nextShareId++, text: '' }])
  const [source] = useState<Source>('files')
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

  const update = (id: number, patch: Partial<ShareEntry>) =>
    setShares((list) => list.map((s) => (s.id === id ? { ...s, ...patch } : s)))

  const check = async (id: number, text: string) => {
    if (!text.trim()) return update(id, { check: undefined, error: undefined })
    try {
      update(id, { check: await vault().checkShare({ text }), error: undefined })
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

  const recover = async (event: FormEvent) => {
    event.preventDefault()
    setBusy(true)
    setError(undefined)
    setReport(undefined)
    try {
      setReport(
        await vault().recoverFiles({
          shares: valid.map((s) => s.text),
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

  return (
    <section className="screen" aria-labelledby="recovery-title">
      <header className="screen-header">
        <h1 id="recovery-title">Recovery</h1>
      </header>
      <div className="panel">
        <h2>1. Enter the guardians' shares</h2>
        <p className="muted">
          Each guardian's kit holds one share, as words and as a QR code. Type or paste the words, or choose a
          photo of the QR code. Enough shares (the kit says how many) rebuild the vault key on this computer;
          nothing is sent anywhere.
        </p>
        <p className="share-count" role="status" data-testid="share-count">
          {threshold
            ? `${valid.length} of ${threshold} shares entered${valid.length >= threshold ? ' — enough to recover' : ''} (the key was split into ${total})`
            : `${valid.length} valid share${valid.length === 1 ? '' : 's'} entered`}
        </p>
        {shares.map((s, index) => (
          <div key={s.id} className="share-entry">
            <label htmlFor={`share-${s.id}`}>Share {index + 1}</label>
            <textarea
              id={`share-${s.id}`}
              rows={4}
              value={s.text}
              spellCheck={false}
              onChange={(e) => update(s.id, { text: e.target.value, check: undefined })}
              onBlur={(e) => void check(s.id, e.target.value)}
              placeholder="The words from the kit, in order"
            />
            <div className="row">
              <label className="button secondary small file-button">
                Read QR code from image…
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
                <span className={s.check.ok ? 'text-ok small' : 'text-danger small'}>{s.check.message}</span>
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
          Add another share
        </button>
      </div>

      <form className="panel" onSubmit={recover}>
        <h2>2. Choose the encrypted files and where to put the originals</h2>
        <fieldset className="radio-cards compact">
          <legend>Where the encrypted files are</legend>
          <label className="radio-card selected">
            <input type="radio" name="source" checked={source === 'files'} readOnly />
            <span>
              <strong>Files or a folder on this computer</strong>
              <span className="muted">
                Encrypted files downloaded from the vault service, or a backup copy.
              </span>
            </span>
          </label>
        </fieldset>
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
        <label htmlFor="recovery-output">Folder for the decrypted files</label>
        <div className="row">
          <input
            id="recovery-output"
            type="text"
            value={outputDir}
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
        <div className="row">
          <button
            type="submit"
            className="button"
            disabled={busy || !threshold || valid.length < threshold || !inputs.trim() || !outputDir.trim()}
          >
            {busy ? 'Decrypting…' : 'Verify and decrypt'}
          </button>
          {(!threshold || valid.length < threshold) && (
            <span className="muted small">Enter enough valid shares first.</span>
          )}
        </div>
        {busy && progress && (
          <div role="status">
            <progress
              max={progress.totalBytes || 1}
              value={progress.doneBytes}
              aria-label="Decryption progress"
            />
            <span className="muted small">
              {progress.filesDone} of {progress.filesTotal} files · {formatBytes(progress.doneBytes)} of{' '}
              {formatBytes(progress.totalBytes)} · {progress.input}
            </span>
          </div>
        )}
        {error !== undefined && <ErrorNotice error={error} />}
        {report && (
          <div className="panel inset">
            <h3>Results in {report.outputDir}</h3>
            <ul className="plain-list">
              {report.results.map((r) => (
                <li key={r.input} className={r.ok ? 'text-ok' : 'text-danger'}>
                  {r.ok ? '✓' : '✗'} {r.input}
                  {r.output ? ` → ${r.output}` : ''}: {r.message}
                </li>
              ))}
            </ul>
          </div>
        )}
      </form>
    </section>
  )
}
