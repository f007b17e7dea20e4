// The Recovery screen: a heir opens a released vault (from the service, or from .vault files here)
// with enough guardians' kits, in three steps; a guardian checks a kit below. The state lives in a
// reducer (recovery/recovery-state.ts), the calls to main in the recovery store.
import { useEffect, useReducer } from 'react'
import { KitCheckPanel } from '../components/KitCheckPanel'
import { RadioCards } from '../components/RadioCards'
import { useAction } from '../components/use-action'
import { useRecoveryStore } from '../stores/recovery-store'
import { useSettingsStore } from '../stores/settings-store'
import { langOf, text } from '../text'
import { KitsStep } from './recovery/KitsStep'
import { initialRecovery, kitsInHand, recoveryReducer, type Source } from './recovery/recovery-state'
import { SaveStep } from './recovery/SaveStep'
import { ServiceStep } from './recovery/ServiceStep'

const t = text.recovery

export function RecoveryScreen() {
  const mode = useSettingsStore((s) => s.appInfo?.mode)
  const [state, dispatch] = useReducer(recoveryReducer, undefined, initialRecovery)
  const { source, serviceUrl, accessToken, vaultId, inputs, outputDir, shares } = state
  const kits = kitsInHand(shares, source)

  useEffect(
    () => useRecoveryStore.getState().watchProgress((progress) => dispatch({ type: 'progress', progress })),
    [],
  )

  const picking = useAction(async (kind: 'files' | 'output-folder') =>
    dispatch({ type: 'picked', kind, paths: await useRecoveryStore.getState().pick(kind) }),
  )
  const recovering = useAction(async () => {
    dispatch({ type: 'recovery-started' })
    const recovery = useRecoveryStore.getState()
    const words = kits.valid.map((s) => s.text)
    const report =
      source === 'service'
        ? await recovery.recoverFromService(
            { serviceUrl: serviceUrl.trim(), accessToken: accessToken.trim(), vaultId: vaultId.trim() },
            words,
            outputDir.trim(),
          )
        : await recovery.recoverFiles(
            words,
            inputs
              .split('\n')
              .map((l) => l.trim())
              .filter(Boolean),
            outputDir.trim(),
          )
    dispatch({ type: 'recovered', report, at: Date.now() })
  })
  // One place for a failure: the picker's (the later one) or the recovery's.
  const error = picking.error ?? recovering.error
  const recover = () => {
    picking.clearError()
    void recovering.run()
  }

  const haveSource = source === 'service' ? !!serviceUrl.trim() && !!accessToken.trim() : !!inputs.trim()
  const missingText = !haveSource
    ? source === 'service'
      ? t.missingService
      : t.missingFiles
    : kits.mixedVaults
      ? t.missingKitsOneVault
      : !kits.enough
        ? t.missingKits
        : !outputDir.trim()
          ? t.missingOutput
          : null

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
        onChange={(next) => dispatch({ type: 'source', source: next })}
        compact
      />

      {source === 'service' ? (
        <ServiceStep state={state} dispatch={dispatch} enough={kits.enough} />
      ) : (
        <div className="panel">
          <h2>{t.filesStep}</h2>
          <label htmlFor="recovery-inputs">{t.inputs}</label>
          <textarea
            id="recovery-inputs"
            rows={3}
            value={inputs}
            onChange={(e) => dispatch({ type: 'field', field: 'inputs', value: e.target.value })}
            spellCheck={false}
          />
          {mode === 'electron' && (
            <button
              type="button"
              className="button secondary small"
              onClick={() => void picking.run('files')}
            >
              {t.chooseFiles}
            </button>
          )}
        </div>
      )}

      <KitsStep shares={shares} kits={kits} dispatch={dispatch} />

      <SaveStep
        state={state}
        dispatch={dispatch}
        canPick={mode === 'electron'}
        onPickFolder={() => void picking.run('output-folder')}
        onRecover={recover}
        busy={recovering.busy}
        error={error}
        missingText={missingText}
        practice={kits.practice}
      />

      <KitCheckPanel />
    </section>
  )
}
