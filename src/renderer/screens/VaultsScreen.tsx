export function VaultsScreen() {
  return (
    <section className="screen" aria-labelledby="vaults-title">
      <header className="screen-header">
        <h1 id="vaults-title">Vaults</h1>
      </header>
      <div className="empty-state">
        <div className="empty-illustration" aria-hidden="true">
          <svg viewBox="0 0 64 64" width="72" height="72" aria-hidden="true">
            <rect
              x="8"
              y="10"
              width="48"
              height="44"
              rx="8"
              fill="none"
              stroke="currentColor"
              strokeWidth="3"
            />
            <circle cx="32" cy="32" r="10" fill="none" stroke="currentColor" strokeWidth="3" />
            <path d="M32 26v6l4 3" stroke="currentColor" strokeWidth="3" fill="none" strokeLinecap="round" />
          </svg>
        </div>
        <h2>No vault yet</h2>
        <p>
          A vault keeps your files encrypted on this computer before they leave it. You choose guardians who
          each hold a piece of the key, and heirs who receive the files if you stop checking in.
        </p>
        <ol className="steps">
          <li>Connect to your vault service with an API key, or run the vault service on this computer.</li>
          <li>Add two or three guardians you trust and give each one their printed kit.</li>
          <li>Add your heirs, drop your important files on this window, and check in from the tray.</li>
        </ol>
      </div>
    </section>
  )
}
