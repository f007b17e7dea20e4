import { type ChangeEvent, type FormEvent, useCallback, useEffect, useState } from 'react'
import { EXTENSION_LIMITS, type Rehearsal, SSS_PRESET_SHAPE } from '../../shared/api'
import type { VaultView } from '../../shared/ipc/vault-types'
import { rehearsalStages, rehearsalStateText } from '../display/readiness-text'
import { useConnectionStore, useWriteAccess } from '../stores/connection-store'
import { useNavigationStore } from '../stores/navigation-store'
import { usePeopleStore } from '../stores/people-store'
import { type RehearsalSample, useRehearsalStore } from '../stores/rehearsal-store'
import { useSectionTarget } from '../stores/section-target'
import { format, text } from '../text'
import { ErrorNotice } from './ErrorNotice'
import { LocalMailLink } from './LocalMailPanel'
import { RadioCards } from './RadioCards'
import { useAction } from './use-action'

const t = text.rehearsal

const POLL_MS = 4000

/**
 * A practice release with throwaway material: practice kits for the guardians, a practice file for one
 * heir; marked as practice, free, expiring by itself, and never the real key.
 */
export function RehearsalPanel({ v }: { v: VaultView }) {
  const service = useConnectionStore((s) => s.status?.service)
  const offered = service?.extensions.includes('rehearsal') ?? false
  useSectionTarget('rehearsal')
  if (v.state !== 'active') return null
  return (
    <section className="panel rehearsal-panel" aria-labelledby="section-rehearsal">
      <h2 id="section-rehearsal" tabIndex={-1}>
        {t.title}
      </h2>
      <p>
        {t.introStart} <strong>{t.practiceWord}</strong>{' '}
        {t.introEnd(SSS_PRESET_SHAPE[v.sssPreset].threshold, EXTENSION_LIMITS.rehearsalDays)}
      </p>
      {offered ? (
        <RehearsalBody v={v} />
      ) : (
        <p className="notice notice-info" data-testid="rehearsal-state">
          {t.notOffered}
        </p>
      )}
    </section>
  )
}

function RehearsalBody({ v }: { v: VaultView }) {
  const service = useConnectionStore((s) => s.status?.service)
  const [rehearsal, setRehearsal] = useState<Rehearsal | null>()
  const [loadError, setLoadError] = useState<unknown>()

  const refresh = useCallback(async () => {
    try {
      setRehearsal(await useRehearsalStore.getState().read(v.id))
      setLoadError(undefined)
    } catch (e) {
      setLoadError(e)
    }
  }, [v.id])

  useEffect(() => {
    void refresh()
  }, [refresh])

  // While a practice runs, follow the heir's progress.
  const running = rehearsal?.state === 'running'
  useEffect(() => {
    if (!running) return
    const timer = setInterval(() => void refresh(), POLL_MS)
    return () => clearInterval(timer)
  }, [running, refresh])

  const noMail = service?.trial || service?.mailConfigured === false
  return (
    <>
      {noMail && (
        <p className="notice notice-warn">
          {service?.trial ? t.noMailTrial : t.noMail} <LocalMailLink label={text.localMail.seeMailPractice} />
        </p>
      )}
      {loadError !== undefined && <ErrorNotice error={loadError} onRetry={() => void refresh()} />}
      {rehearsal === undefined && loadError === undefined && <p className="muted">{t.looking}</p>}
      {rehearsal && <RehearsalReport r={rehearsal} onChange={setRehearsal} />}
      {rehearsal !== undefined && !running && <StartRehearsalForm v={v} onStarted={setRehearsal} />}
    </>
  )
}

function RehearsalReport({ r, onChange }: { r: Rehearsal; onChange(r: Rehearsal): void }) {
  const { canWrite, reason } = useWriteAccess()
  const service = useConnectionStore((s) => s.status?.service)
  const mailSent = !!service && !service.trial && service.mailConfigured !== false
  const ending = useAction(async () => onChange(await useRehearsalStore.getState().end(r.vaultId)))
  const { busy, error, run: end } = ending

  const stages = rehearsalStages(r, mailSent)
  return (
    <div className={`rehearsal-report rehearsal-${r.state}`}>
      <h3>{r.state === 'running' ? t.current : t.last}</h3>
      <p
        data-testid="rehearsal-state"
        className={r.state === 'passed' ? 'text-ok' : undefined}
        aria-live="polite"
      >
        {rehearsalStateText(r, Date.now())}
      </p>
      <p className="muted small" data-testid="rehearsal-sample">
        {t.sampleLine(r.sample.filename)}
        {r.sample.ownerFile && <> ({t.sampleReadable})</>}
      </p>
      <ol className="rehearsal-stages">
        {stages.map((s) => (
          <li key={s.key} className={s.at ? 'done' : 'waiting'}>
            <span className="readiness-mark" aria-hidden="true">
              {s.at ? '✓' : ''}
            </span>
            <span>
              <span className="visually-hidden">{`${s.at ? t.done : t.notYetLabel} `}</span>
              {s.label}
              <span className="muted small"> — {s.at ? format.dateTime(s.at) : t.notYet}</span>
            </span>
          </li>
        ))}
      </ol>
      {r.failedReports > 0 && <p className="notice notice-warn">{t.failedReports(r.failedReports)}</p>}
      {r.state === 'running' && (
        <div className="row">
          <button
            type="button"
            className="button secondary"
            onClick={() => void end()}
            disabled={busy || !canWrite}
            title={reason ?? undefined}
          >
            {busy ? t.ending : t.end}
          </button>
          <span className="muted small">{t.endNote}</span>
        </div>
      )}
      {error !== undefined && <ErrorNotice error={error} />}
    </div>
  )
}

/** The owner's own file as a practice file: read here, sent as base64, refused above the limit. */
interface OwnFile {
  name: string
  size: number
  contentBase64: string
}

async function readOwnFile(file: File): Promise<OwnFile> {
  const bytes = new Uint8Array(await file.arrayBuffer())
  let binary = ''
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  }
  return { name: file.name, size: bytes.length, contentBase64: btoa(binary) }
}

function StartRehearsalForm({ v, onStarted }: { v: VaultView; onStarted(r: Rehearsal): void }) {
  const { canWrite, reason } = useWriteAccess()
  const setTab = useNavigationStore((s) => s.setTab)
  const heirs = usePeopleStore((s) => s.byVault[v.id]?.heirs)
  const guardians = usePeopleStore((s) => s.byVault[v.id]?.guardians)
  const loadHeirs = usePeopleStore((s) => s.loadHeirs)
  const loadGuardians = usePeopleStore((s) => s.loadGuardians)
  const [heirId, setHeirId] = useState('')
  const [sampleKind, setSampleKind] = useState<'letter' | 'file'>('letter')
  const [ownFile, setOwnFile] = useState<OwnFile>()
  const [fileProblem, setFileProblem] = useState<string>()
  const starting = useAction(async (sample: RehearsalSample) =>
    onStarted(await useRehearsalStore.getState().start(v.id, chosenHeir, sample)),
  )
  const { busy, error } = starting

  // biome-ignore lint/correctness/useExhaustiveDependencies: re-read when the vault's counts move
  useEffect(() => {
    void loadHeirs(v.id)
    void loadGuardians(v.id)
  }, [v.id, v.heirCount, v.guardianCount, loadHeirs, loadGuardians])

  const chosenHeir = heirId || heirs?.[0]?.id || ''
  const { threshold } = SSS_PRESET_SHAPE[v.sssPreset]
  const taking = guardians?.filter((g) => g.status !== 'declined').length

  const choose = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0]
    event.target.value = ''
    setFileProblem(undefined)
    if (!file) return
    if (file.size > EXTENSION_LIMITS.rehearsalOwnFileMaxBytes) {
      setOwnFile(undefined)
      setFileProblem(t.ownFileTooLarge(format.bytes(EXTENSION_LIMITS.rehearsalOwnFileMaxBytes)))
      return
    }
    setOwnFile(await readOwnFile(file))
  }

  const start = async (event: FormEvent) => {
    event.preventDefault()
    await starting.run(
      sampleKind === 'file' && ownFile
        ? { kind: 'file', name: ownFile.name, contentBase64: ownFile.contentBase64 }
        : { kind: 'letter' },
    )
  }

  if (heirs && heirs.length === 0) {
    return (
      <p>
        {t.addHeirFirst}{' '}
        <button type="button" className="link-button" onClick={() => setTab('heirs')}>
          {t.goToHeirs}
        </button>
      </p>
    )
  }
  if (taking !== undefined && taking < threshold) {
    return (
      <p>
        {t.needGuardians(threshold)}{' '}
        <button type="button" className="link-button" onClick={() => setTab('guardians')}>
          {t.goToGuardians}
        </button>
      </p>
    )
  }
  return (
    <form className="rehearsal-form" onSubmit={start} aria-label={t.startLabel}>
      <div className="field">
        <label htmlFor="rehearsal-heir">{t.heir}</label>
        <select
          id="rehearsal-heir"
          value={chosenHeir}
          onChange={(e) => setHeirId(e.target.value)}
          disabled={!heirs || !canWrite}
        >
          {heirs?.map((h) => (
            <option key={h.id} value={h.id}>
              {t.heirOption(h.name, h.email)}
            </option>
          ))}
        </select>
      </div>
      {/* A full row: the choice, and the warning when it is one of the owner's files. */}
      <div style={{ flexBasis: '100%' }}>
        <RadioCards<'letter' | 'file'>
          legend={t.sample}
          name="rehearsal-sample"
          options={[
            { value: 'letter', label: t.sampleLetter, sentence: t.sampleLetterNote },
            {
              value: 'file',
              label: t.sampleOwn,
              sentence: t.sampleOwnNote(format.bytes(EXTENSION_LIMITS.rehearsalOwnFileMaxBytes)),
            },
          ]}
          value={sampleKind}
          onChange={setSampleKind}
          compact
          disabled={!canWrite}
        />
        {sampleKind === 'file' && (
          <div className="notice notice-warn" data-testid="rehearsal-own-file-warning">
            <p>{t.sampleOwnWarning}</p>
            <div className="row">
              <label className="button secondary small file-button">
                {t.chooseOwnFile}
                <input type="file" className="visually-hidden" onChange={(e) => void choose(e)} />
              </label>
              {ownFile && (
                <span className="small">{t.ownFileChosen(ownFile.name, format.bytes(ownFile.size))}</span>
              )}
            </div>
            {fileProblem && <p className="text-danger small">{fileProblem}</p>}
          </div>
        )}
      </div>
      <button
        type="submit"
        className="button"
        disabled={busy || !canWrite || !chosenHeir || (sampleKind === 'file' && !ownFile)}
        title={reason ?? undefined}
      >
        {busy ? t.starting : t.start}
      </button>
      {error !== undefined && <ErrorNotice error={error} />}
    </form>
  )
}
