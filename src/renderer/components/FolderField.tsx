// A folder typed as a path, with a "Choose…" button where the shell has a native picker (Electron):
// the encrypted export and saving files both ask for one this way.
export function FolderField(props: {
  id: string
  label: string
  help: string
  value: string
  onChange: (value: string) => void
  disabled: boolean
  /** Shown only where a native picker exists. */
  pick?: { label: string; run: () => void }
}) {
  const helpId = `${props.id}-help`
  return (
    <>
      <label htmlFor={props.id}>{props.label}</label>
      <p className="muted small" id={helpId}>
        {props.help}
      </p>
      <div className="row">
        <input
          id={props.id}
          type="text"
          value={props.value}
          onChange={(e) => props.onChange(e.target.value)}
          aria-describedby={helpId}
          spellCheck={false}
          disabled={props.disabled}
        />
        {props.pick && (
          <button
            type="button"
            className="button secondary small"
            disabled={props.disabled}
            onClick={props.pick.run}
          >
            {props.pick.label}
          </button>
        )}
      </div>
    </>
  )
}
