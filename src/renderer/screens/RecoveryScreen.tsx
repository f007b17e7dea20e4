export function RecoveryScreen() {
  return (
    <section className="screen" aria-labelledby="recovery-title">
      <header className="screen-header">
        <h1 id="recovery-title">Recovery</h1>
      </header>
      <div className="panel">
        <h2>For heirs and guardians</h2>
        <p>
          When a vault has been released, its files can be opened with the guardians' kits: enough guardians
          (for example any 2 of 3) read out or scan the words on their kit, and the files are decrypted on
          this computer. No company needs to be involved.
        </p>
        <ul className="plain-list">
          <li>The printed kits of enough guardians (the kit says how many are needed).</li>
          <li>The encrypted files, or the heir access link from the e-mail you received.</li>
        </ul>
      </div>
    </section>
  )
}
