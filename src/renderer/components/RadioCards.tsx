/** A choice among a few options, each a card with a name and a sentence (the chosen one highlighted). */
export function RadioCards<T extends string>({
  legend,
  name,
  options,
  value,
  onChange,
  compact = false,
  disabled,
}: {
  legend: string
  name: string
  options: readonly { value: T; label: string; sentence: string }[]
  /** null: none chosen yet (nothing is shown as if it were). */
  value: T | null
  onChange(value: T): void
  compact?: boolean
  disabled?: boolean
}) {
  return (
    <fieldset className={compact ? 'radio-cards compact' : 'radio-cards'} disabled={disabled}>
      <legend>{legend}</legend>
      {options.map((option) => (
        <label key={option.value} className={`radio-card${value === option.value ? ' selected' : ''}`}>
          <input
            type="radio"
            name={name}
            value={option.value}
            checked={value === option.value}
            onChange={() => onChange(option.value)}
          />
          <span>
            <strong>{option.label}</strong>
            <span className="muted">{option.sentence}</span>
          </span>
        </label>
      ))}
    </fieldset>
  )
}
