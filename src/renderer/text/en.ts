// Every string the window shows, in English. Sections follow the screens; a translation (es.ts)
// overrides what it covers. Keep messages whole sentences: word order differs between languages.
import type { LocaleFormat } from '../../shared/locale-format'
import { isolateName, revealControls } from '../../shared/untrusted-text'

export const english = (f: LocaleFormat) => ({
  app: {
    name: 'Vault Desktop',
    mainNavigation: 'Main',
    releasingBadge: (n: number) => `${f.number(n)} releasing`,
    couldNotStart: 'Vault Desktop could not start',
    loadingScreen: 'Opening…',
    backendLostTitle: 'Lost the connection to the Vault Desktop backend.',
    backendLost:
      'This page no longer shows what is true and can do nothing. Start the backend again with "npm start" and open the new link it prints (this page\'s link stops working).',
  },
  screens: {
    vaults: 'Vaults',
    recovery: 'Recovery',
    settings: 'Settings',
  },
  drop: {
    overlay: (vault: string) => `Drop to back up to ${vault}`,
    overlayNoVault: 'Open a vault to back up files into it',
    openVaultFirst: 'Open a vault first, then drop the files on its window to back them up there.',
    vaultNotActive: 'Files can be added while the vault is active.',
    noBackend:
      'This window cannot take dropped files: it is not connected to the Vault Desktop backend. Reload the page from the link "npm start" printed.',
    nothingDropped: 'Nothing to back up was dropped (empty folders are not backed up).',
    readFailed:
      'A dropped file could not be read by the browser. Check that it still exists, then drop it again.',
    receivingTitle: 'Receiving the dropped files',
    receiving: (sentFiles: number, totalFiles: number, sent: string, total: string) =>
      `${f.number(sentFiles)} of ${f.count(totalFiles, { one: 'file', other: 'files' })}, ${sent} of ${total}. Nothing is uploaded until you confirm.`,
    progressLabel: 'Dropped files received',
    left: (duration: string) => `, about ${duration} left`,
    cancel: 'Cancel',
    cancelled: 'The drop was cancelled; nothing was kept or uploaded.',
    failed: (why: string) => `The dropped files could not be received: ${why}`,
  },
  uploadPanel: {
    title: 'Back up files',
    dropHintDesktop:
      'Drop files or folders anywhere on this window: they are encrypted here, then uploaded to this vault.',
    dropHintBrowser:
      'Drop files or folders anywhere on this window, or choose them below: they are encrypted by Vault Desktop on this computer, then uploaded to this vault.',
    notActive: (state: string) => `Files can be added while the vault is active; this vault is ${state}.`,
    noKeyHere:
      "This computer does not hold this vault's key, so it cannot encrypt files for it. Type in the owner kit's words (Overview → Vault key) to put the key here.",
    keyLostHere:
      "This computer held this vault's key only while the app ran (it has no keychain), so it cannot encrypt files for it now. Type in the owner kit's words (Overview → Vault key) to bring the key back.",
    toVaultKey: 'Go to Vault key',
    saveKitFirst: 'Save the owner kit before the first upload.',
    saveKitWhy:
      'This computer keeps the vault key only until the app closes; the owner kit is its only lasting copy.',
    saveKitButton: 'Save the owner kit…',
    chooseFiles: 'Choose files…',
    chooseFolder: 'Choose a folder…',
    pathLabel: 'Path of a file or folder on the computer running Vault Desktop',
    pathHelp:
      'Or type the full path of a file or folder on this computer (for example /home/you/Documents/Taxes): nothing is copied first, which suits very large folders. Folders are backed up with everything inside.',
    pathPlaceholder: '/home/you/Documents',
    estimating: 'Estimating…',
    backUp: 'Back up',
    queued: (count: number, skipped: number) =>
      skipped
        ? `Queued ${f.count(count, { one: 'file', other: 'files' })}, ${f.number(skipped)} skipped.`
        : `Queued ${f.count(count, { one: 'file', other: 'files' })}.`,
  },
  common: {
    dismiss: 'Dismiss',
    cancel: 'Cancel',
    files: (n: number) => f.count(n, { one: 'file', other: 'files' }),
    credits: (n: number) => f.credits(n),
    /** A transfer rate: "4.2 MB/s". */
    rate: (size: string) => `${size}/s`,
    unknown: 'unknown',
    notSet: '—',
    /** How long ago a deadline passed (milliseconds): "overdue by 2 days", "overdue by 3 hours". */
    overdueBy: (ms: number) =>
      ms < 3_600_000
        ? 'overdue by less than an hour'
        : ms < 86_400_000
          ? `overdue by ${f.count(Math.round(ms / 3_600_000), { one: 'hour', other: 'hours' })}`
          : `overdue by ${f.count(Math.ceil(ms / 86_400_000), { one: 'day', other: 'days' })}`,
  },
  errors: {
    creditsNeeded: (n: number) => `Needed: ${f.credits(n)}.`,
    creditsBalance: (n: number) => `Balance: ${f.credits(n)}.`,
    tryAgainIn: (seconds: number) => `You can try again in ${f.duration(seconds)}.`,
    tryAgainNow: 'You can try again now.',
    retryIn: (seconds: number) => `Try again in ${f.duration(seconds)}`,
    retry: 'Try again',
    reconnect: 'Reconnect in Settings',
    saveOwnerKit: 'Save the owner kit…',
    connections: 'Connections in Settings',
    technicalDetails: 'Technical details',
    screenFailed: 'This screen ran into a problem',
    screenFailedDetail: 'Nothing in your vault was changed. The app reported:',
    screenFailedAdvice: 'Try again; if it happens every time, restart Vault Desktop.',
  },
  qrImage: {
    notAnImage: (name: string) =>
      `${isolateName(name)} is not an image this app can read. Use a PNG or JPEG photo or scan of the kit's QR code.`,
    noCanvas: 'This window cannot read images (no canvas). Type the words from the kit instead.',
    noCode: (name: string) =>
      `No QR code found in ${isolateName(name)}. Take the photo straight on, with the whole code in view and in focus, or type the words instead.`,
  },
  recovery: {
    title: 'Recovery',
    lead: 'If someone named you as an heir, you can open their files here. You need the e-mail you received and the kits of enough of their guardians. Nothing here is urgent and nothing you do here can harm the files: take your time, and ask someone to sit with you if that helps.',
    sourceLegend: 'Where are the files?',
    sourceService: 'I received an e-mail with an access code',
    sourceServiceNote: 'The files are downloaded from the vault service named in the e-mail.',
    sourceFiles: 'I have the encrypted files on this computer',
    sourceFilesNote: 'Files whose names end in .vault, from a backup or a download.',
    emailStep: '1. Copy three things from the e-mail',
    emailStepNote:
      "The e-mail's subject starts with “You have been given access” (for a practice run, with “[PRACTICE] A practice run”). Copy each item exactly; spaces before or after do not matter.",
    serviceAddress: 'Vault Service address',
    serviceAddressPlaceholder: 'https://…',
    accessToken: 'Your personal access code (starts with hk_)',
    accessTokenPlaceholder: 'hk_…',
    vaultId: "Vault id (filled in for you when you enter a guardian's kit)",
    looking: 'Looking…',
    showFiles: 'Show the files',
    showFilesNote: 'Optional: see what the vault holds before you start.',
    showFilesNeedsVaultId:
      "Needs the vault id too: it is in the e-mail, or filled in by itself once you enter a guardian's kit in step 2.",
    showAllResults: (n: number) => `Show the outcome for each of the ${f.number(n)} files`,
    vaultHolds: (files: number, size: string) =>
      `The vault holds ${f.count(files, { one: 'file', other: 'files' })} (${size} in total)`,
    /** Beside one of the listed encrypted files that holds several of the owner's small files. */
    packedFiles: (files: number) => `${f.count(files, { one: 'file', other: 'files' })} packed together`,
    lockedNote: "They are locked until enough guardians' kits are entered below.",
    filesStep: '1. Choose the encrypted files',
    inputs: 'Encrypted files or folders (one full path per line)',
    chooseFiles: 'Choose files…',
    kitsStep: "2. Enter the guardians' kits",
    kitsStepNote:
      'Each guardian was given a printed kit with a list of words and a square barcode. Type or paste the words (capital letters and extra spaces do not matter), or choose a photo of the barcode. The kits stay on this computer; nothing is sent anywhere.',
    noKits: 'No kits entered yet.',
    kitsEntered: (n: number) => `${f.count(n, { one: 'kit', other: 'kits' })} entered.`,
    kitsEnough: (n: number, threshold: number, total: number) =>
      `${f.count(n, { one: 'kit', other: 'kits' })} entered — enough to open the files (${f.number(threshold)} of ${f.number(total)} needed).`,
    kitsShort: (n: number, threshold: number, total: number) => {
      const more = threshold - n
      return `${f.count(n, { one: 'kit', other: 'kits' })} entered — ${f.number(threshold)} of ${f.number(total)} needed. Ask ${more === 1 ? 'one more guardian' : `${f.number(more)} more guardians`} for their kit.`
    },
    mixedVaults: (fingerprints: string) =>
      `These kits belong to different vaults (fingerprints ${fingerprints}): each vault has its own guardians and its own kits, and they never fit together. Keep only the kits whose fingerprint matches the vault you are recovering.`,
    mixedSetsEnough:
      'Some kits come from another set (the owner made new kits at some point). They will be left out: the kits of the set you have enough of are what open the files.',
    mixedSetsShort:
      'These kits come from different sets. The owner made new kits at some point (for example after changing guardians), and old and new kits do not fit together. Ask the guardians for their newest kit: the set is printed on each kit, and all kits used together must show the same set.',
    kit: (n: number) => `Kit ${f.number(n)}`,
    kitPlaceholder: 'The words from the kit, in order',
    readPhoto: 'Read the barcode from a photo…',
    remove: 'Remove',
    kitRead: (index: number, of: number, vault: string, set: string) =>
      `Kit ${f.number(index)} of ${f.number(of)}, read correctly (vault ${isolateName(vault)}, set ${isolateName(set)}, as printed on the kit).`,
    kitNotRead: 'This kit could not be read.',
    addKit: 'Add another kit',
    saveStep: '3. Choose where to save the files',
    output: 'Folder for the recovered files',
    outputPlaceholder: 'For example /home/you/Documents/Recovered files',
    chooseFolder: 'Choose…',
    outputNote:
      'A new folder is made if needed. Files already there are never replaced. The disk needs free space of about twice the vault’s size while the recovery runs. If the recovery is interrupted, start it again with the same folder: it continues where it stopped.',
    recovering: 'Recovering…',
    continue: 'Continue where it stopped',
    recoverFromService: 'Recover the files',
    recoverFiles: 'Verify and decrypt',
    missingService: 'Fill in the service address and access code from the e-mail (step 1).',
    missingFiles: 'Say where the encrypted files are (step 1).',
    missingKits: 'Enter enough guardians’ kits first (step 2).',
    missingKitsOneVault: 'Use the kits of one vault only (step 2).',
    missingOutput: 'Say where to save the files (step 3).',
    progress: 'Recovery progress',
    // Counts the encrypted files read (a bundle holds many of the owner's files): said as such.
    progressFile: (n: number, total: number) => `Encrypted file ${f.number(n)} of ${f.number(total)}`,
    practicePassed: 'Practice passed: the practice kits opened the practice file.',
    manifestUsed: "The vault's own list of its files was found and checked:",
    manifestMissing: 'Check this before you rely on the files:',
    practiceNotConfirmed: 'Practice not confirmed by the service.',
    practiceNote: 'This was a practice run: nothing was released, and the real kits were not used.',
    practiceMode:
      "These are practice kits: this is a practice. Only the practice file is recovered; the vault stays closed. Do not enter anyone's real guardian kit.",
    kitReadPractice: (index: number, of: number, until: string) =>
      `Practice kit ${f.number(index)} of ${f.number(of)}, read correctly (works until ${f.date(until)}).`,
    recoverPractice: 'Recover the practice file',
    practiceFiles: 'This practice access code opens one practice file:',
    kitsSetAside: (n: number) =>
      `The other kits were enough, so ${n === 1 ? 'one kit was' : 'some kits were'} left out:`,
    stopped: 'The recovery stopped before the end.',
    allRecovered: (n: number) =>
      n === 1
        ? 'The file was recovered and checked.'
        : `All ${f.count(n, { one: 'file', other: 'files' })} recovered and checked.`,
    someRecovered: (done: number, total: number) =>
      `${f.number(done)} of ${f.count(total, { one: 'file', other: 'files' })} recovered.`,
    someRecoveredSoFar: (done: number, total: number) =>
      `${f.number(done)} of ${f.count(total, { one: 'file', other: 'files' })} recovered so far.`,
    savedIn: (n: number, folder: string) => `${n === 1 ? 'It is' : 'They are'} in ${revealControls(folder)}.`,
    finishedAt: (at: number) => `Finished ${f.dateTime(at)}.`,
    openNote:
      "They open like any other files. Keep the guardians' kits until you are sure you have everything.",
    /** A file's outcome in a word or two (a translation shows it before the detail the app core wrote in English). */
    fileStatus: {
      recovered: 'recovered and checked',
      kept: 'already recovered by an earlier run, left as it is',
      superseded: 'an older copy, left out',
      failed: 'not recovered',
      'not-reached': 'not recovered yet',
    },
    kitCheck: {
      title: 'For a guardian: check that you still have your kit',
      lead: 'Your kit carries a short check code, printed apart from the words. Type your kit’s words here: this computer works out the code and shows it, and it must match the one on your paper. The words stay on this computer.',
      words: 'Your kit’s words (one guardian kit)',
      link: 'The “check my kit” link from your guardian e-mail (optional)',
      linkNote:
        'With the link, the code (never the words) is sent to the owner’s service to confirm you still have the kit.',
      linkPlaceholder: 'https://… (the whole link from the e-mail)',
      show: 'Show the check code',
      confirm: 'Show and confirm',
      working: 'Checking…',
      code: 'Check code',
      kitOf: (index: number, shares: number, fingerprint: string) =>
        `Kit ${f.number(index)} of ${f.number(shares)}, vault fingerprint ${fingerprint}. The code must match the one printed on the kit.`,
      confirmed: (at: string) =>
        `Confirmed ${f.date(at)}: the owner’s service now knows you still have this kit. Keep it where it was.`,
      olderSplit: (at: string) =>
        `This kit is from an older set: the owner made new kits on ${f.date(at)}, and this one no longer fits them. Ask the owner for your new kit.`,
      otherGuardian:
        'This is another guardian’s kit of this vault, not the one made for you. Check that you typed your own kit and used the link from your own e-mail.',
      typo: 'The service did not read this as a check code. Try again.',
      unknown:
        'The owner’s service knows no kit with this code: the kit may belong to another vault, or the link to another owner’s vault.',
      notRegistered:
        'The owner has not registered check codes for your kit yet. Ask them to open the Guardians tab in their app, then check again.',
    },
  },
  toasts: {
    regionLabel: 'Notifications',
    checkInNow: 'Check in now',
    checkingIn: 'Checking in…',
    checkedInTitle: 'Checked in',
    checkedInBody: (vault: string, due: string, relative: string) =>
      `${vault}: next check-in due ${due} (${relative}).`,
    checkInFailedTitle: 'Check-in failed',
    checkInFailedBody: (vault: string, why: string) => `${vault}: ${why}`,
    addCredits: 'Add credits',
    openVault: 'Open vault',
    backupsFinished: (n: number) => `${f.count(n, { one: 'backup', other: 'backups' })} finished`,
  },
  releaseStatus: {
    releasingTitle: 'The release to your heirs has started',
    releasingIntro: 'This vault is releasing to your heirs.',
    startedOn: (date: string) => `The release started on ${date}.`,
    accessOn: (date: string) => `Your heirs get access on ${date}, unless you cancel before then.`,
    daysLeft: (n: number) => `${f.count(n, { one: 'day', other: 'days' })} left to cancel.`,
    notIntended: 'If you did not intend this, cancel the release now.',
    cancelRelease: 'Cancel release',
    cancelTitle: 'Cancel the release?',
    cancelBody:
      "The vault goes back to active and your heirs are not told anything. If the release was started by your dead man's switch, check in regularly so it does not start again.",
    releasedTitle: 'Released to your heirs',
    releasedOn: (date: string) => `Your heirs were given access on ${date}.`,
    releasedNote:
      "Nothing about the release can be changed any more: no check-ins, no release settings. Your heirs recover the files with the guardians' kits.",
    settingsWhileActive: 'Check-ins and release settings apply while the vault is active.',
    claimedTitle: 'A guardian says you can no longer act.',
    claimedBy: (date: string) => `claimed a release of this vault on ${date}:`,
    claimedCount: (count: number, needed: number) =>
      `${f.number(count)} of ${f.number(needed)} guardian claims needed to start one.`,
    claimedAdvice: (days: number) =>
      `If you are well, talk to your guardians now. Once a release starts, you can cancel it here for ${f.count(days, { one: 'day', other: 'days' })}.`,
  },
  uploadCost: {
    permanentStore:
      "This service keeps files on a permanent store (Arweave): nothing sent to it can ever be deleted, not even by deleting the file or the vault. The encrypted files are public, and anyone who holds enough of the guardians' kits, or your owner kit, can open them, now or decades from now.",
    permanentFirst: 'Upload only what you are content to have readable for ever by whoever holds those kits.',
    nothingFitsTitle: 'Not enough credits for any of these files',
    nothingFits: (balance: number, needed: number) =>
      `None of these files fits the balance of ${f.credits(balance)}, so nothing would be uploaded. Add at least ${f.credits(needed)} in Settings, then back them up again.`,
    withReserve: (credits: number, months: number) =>
      `To keep the credits for ${f.count(months, { one: 'month', other: 'months' })} of check-ins as well, add ${f.credits(credits)}.`,
    addCredits: 'Add credits in Settings',
    notNow: 'Not now',
    retryNote: 'It was not stored before, so uploading it again is charged like a new upload.',
    summary: (files: number, size: string, encrypted: string) =>
      `${f.count(files, { one: 'file', other: 'files' })}, ${size} (${encrypted} once encrypted). Estimated cost:`,
    balance: (credits: number) => `Balance: ${f.credits(credits)}.`,
    reserveTitle: 'Spend the credits kept for check-ins?',
    confirmTitle: 'Upload these files?',
    shortTitle: 'Not enough credits',
    uploadAnyway: 'Upload anyway, spend the reserve',
    uploadWhatFitsReserve: 'Upload what fits, spend the reserve',
    encryptAndUpload: (credits: number) =>
      `Encrypt and upload (${f.count(credits, { one: 'credit', other: 'credits' })})`,
    uploadWhatFits: 'Upload what fits',
    cancel: 'Cancel',
    bundlesStart: (files: number, bundles: number) =>
      `${f.count(files, { one: 'small file goes', other: 'small files go' })} in ${f.count(bundles, { one: 'bundle', other: 'bundles' })}: this upload costs`,
    bundlesEnd: (withoutBundles: number) =>
      `instead of ${f.credits(withoutBundles)} one by one. They come back as separate files when recovered.`,
    reserveKept: (credits: number, months: number, after: number) =>
      `Kept for check-ins: ${f.credits(credits)} — ${f.count(months, { one: 'month', other: 'months' })} of check-ins. After this upload: ${f.credits(after)}.`,
    reserveWarning:
      "This upload would leave too few credits for check-ins, so the dead man's switch could release the vault by accident.",
    reserveWhy:
      'Every check-in costs credits; when they run out you cannot check in, and a missed check-in starts the release to your heirs.',
    safer: 'Safer: add credits first, or choose fewer files.',
    short: (credits: number) =>
      `The balance is ${f.count(credits, { one: 'credit', other: 'credits' })} short. Files that do not fit will fail without being charged; add credits first, or choose fewer files.`,
    tooLarge: (limitGb: number, names: readonly string[], more: number) =>
      `Over the ${f.number(limitGb)} GB limit and left out: ${f.list(more > 0 ? [...names.map(isolateName), f.count(more, { one: 'more', other: 'more' })] : names.map(isolateName))}.`,
    skipped: (n: number, detail: string) =>
      `${f.count(n, { one: 'item', other: 'items' })} skipped: ${detail}`,
    chargedOnly: 'Credits are charged only for files that are stored. Cancelling costs nothing.',
    // Files whose bytes the vault already holds (point 5 of issue 28).
    alreadyTitle: 'Already backed up',
    alreadyStored: (files: number) =>
      `${f.count(files, { one: 'file is', other: 'files are' })} already in this vault (the same content, whatever the name): left out, not charged.`,
    alreadyOn: (date: string) => `already backed up on ${date}`,
    alreadyMore: (more: number) => `and ${f.count(more, { one: 'more', other: 'more' })}`,
    uploadAgain: 'Upload again anyway',
    uploadAgainNote: 'Another copy costs credits like a new upload.',
    close: 'Close',
  },
  guardianKits: {
    invited: (name: string) => `${name} was invited.`,
    addedNoMail: (name: string) => `${name} was added; no e-mail was sent, so tell them yourself.`,
    removed: 'The guardian was removed.',
    kitsMade: (n: number) =>
      `The key was split into ${f.count(n, { one: 'kit', other: 'kits' })}, one per guardian.`,
    kitsRemade: (n: number) =>
      `The key was split again: ${f.count(n, { one: 'new kit', other: 'new kits' })}.`,
    earlierNotHandedOver:
      'None of the kits made before this change had been handed over: print only the new ones and destroy any old printout. A new kit does not combine with an old one, but two old kits together still open the vault.',
    earlierHandedOver: (n: number) =>
      n === 1
        ? 'A kit of the previous split was handed over. It still opens the vault together with any other kit of that split until they are destroyed: give every guardian their new kit and ask for the old one back or destroyed.'
        : `${f.number(n)} kits of the previous split were handed over. Any two of them still open the vault until they are destroyed: give every guardian their new kit and ask for the old ones back or destroyed.`,
    /** After a removal: what the new split does not do, and the way to make old kits worthless. */
    removedStillOpens:
      "The removed guardian's kit still opens the vault together with any other old kit until they are destroyed: splitting the same key again cannot change that. To make every old kit worthless, rotate the vault key.",
    addAllFirst: (added: number, total: number) =>
      `${f.number(added)} of ${f.number(total)} guardians added. Add all ${f.number(total)} before printing or handing over kits: each guardian you add splits the key again, and a kit of one split does not combine with a kit of another.`,
    kitChangesLater: (total: number) =>
      `Not all ${f.number(total)} guardians are added yet: this kit is replaced when you add the next one (kits of different splits do not combine). Add them all first, then print the kits.`,
  },
  keyRotation: {
    title: 'Rotate the vault key',
    why: 'A new vault key makes every kit handed out so far worthless: every file is re-encrypted under the new key, the old copies are deleted, and every guardian gets a new kit. Do it after removing a guardian, or when a kit may have reached the wrong hands.',
    afterRemoval: "Rotate the vault key now so that the removed guardian's kit opens nothing.",
    check: 'See what it costs',
    checking: 'Reading the vault…',
    cost: (files: number, bytes: number, credits: number) =>
      `Re-encrypting ${f.count(files, { one: 'stored file', other: 'stored files' })} (${f.bytes(bytes)}) costs ${f.credits(credits)}: each is uploaded again.`,
    balance: (credits: number) => `Balance: ${f.credits(credits)}.`,
    short: (credits: number) =>
      `The balance is ${f.count(credits, { one: 'credit', other: 'credits' })} short. Add credits first; nothing is started or charged.`,
    empty: 'The vault holds no files: the rotation only makes a new key and new kits, at no cost.',
    deletes:
      'Once every file is re-encrypted and read back, and you have saved and confirmed the new owner kit, the old copies are deleted from the service.',
    permanent:
      'This service keeps files on Arweave, a permanent store: nothing stored there can be deleted. After the rotation the old copies stay readable for ever by anyone holding two old kits or the old owner kit; the rotation protects the copies the service serves from now on.',
    noDelete:
      'This service cannot delete files: the old copies stay on it, readable with the old kits, until its operator removes them.',
    unknownStorage:
      'This service does not say where it keeps files or whether deleting removes them: old copies may stay readable with the old kits.',
    safe: 'Until every file is re-encrypted the old key stays the vault key, so stopping half-way loses nothing; the rotation continues where it stopped, also after a restart.',
    after:
      'Afterwards you must save the new owner kit: the old copies are deleted only once you confirm it, and until then the old kits still open them. Every guardian needs their new kit.',
    start: (credits: number) => `Rotate the key for ${f.credits(credits)}`,
    starting: 'Starting…',
    phase: {
      none: '',
      're-encrypting': 'Re-encrypting the files under the new key',
      switched: 'The new key is in use; reading the new copies back',
      'awaiting-owner-kit': 'Waiting for you to save the new owner kit',
      done: 'The vault key was rotated',
    },
    progress: (done: number, total: number, bytesDone: number, bytesTotal: number) =>
      `${f.number(done)} of ${f.count(total, { one: 'file', other: 'files' })}, ${f.bytes(bytesDone)} of ${f.bytes(bytesTotal)}`,
    rate: (bytesPerSecond: number) => `${f.bytes(bytesPerSecond)}/s`,
    charged: (credits: number, of: number) => `${f.credits(credits)} of ${f.credits(of)} spent.`,
    paused:
      'Paused. The old key is still the vault key and every file opens as before; resume to continue where it stopped.',
    pause: 'Pause',
    resume: 'Resume',
    abandon: 'Abandon the rotation',
    abandonNote:
      'Abandoning deletes the copies already made under the new key; the vault stays under its old key. Credits already spent are not returned.',
    done: (files: number, credits: number) =>
      `${f.count(files, { one: 'file', other: 'files' })} re-encrypted under the new key for ${f.credits(credits)}. No old kit opens anything this service holds.`,
    doneKept: (files: number, credits: number) =>
      `${f.count(files, { one: 'file', other: 'files' })} re-encrypted under the new key for ${f.credits(credits)}. The copies the service serves open only with the new kits.`,
    oldCopiesKept: (n: number) =>
      `${f.count(n, { one: 'old copy stays', other: 'old copies stay' })} on the service's permanent store, readable with the old kits for ever.`,
    unreadable: (n: number) =>
      `${f.count(n, { one: 'stored file does', other: 'stored files do' })} not open with the vault key (damaged, or not of this vault) and ${n === 1 ? 'was' : 'were'} left as ${n === 1 ? 'it was' : 'they were'}.`,
    kitsMade: (n: number) =>
      n === 0
        ? 'The vault has no guardians, so no guardian kit was made.'
        : `${f.count(n, { one: 'new guardian kit was', other: 'new guardian kits were' })} made (Guardians tab): give each guardian theirs and ask for the old one back or destroyed.`,
    saveOwnerKit:
      'Save the new owner kit now (Overview, Vault key and owner kit): the old one opens nothing any more.',
    rotateAgain: 'Rotate again',
    awaitingTitle: 'Save the new owner kit: the old copies are kept until you do',
    awaiting: (files: number, oldCopies: number) =>
      `${f.count(files, { one: 'file is', other: 'files are' })} re-encrypted under the new key and read back. Right now only this computer holds the new key, so ${f.count(oldCopies, { one: 'old copy stays', other: 'old copies stay' })} on the service: if this computer were lost before you save the new owner kit, the old copies and the old kits are what you and your heirs would recover from.`,
    awaitingRisk:
      "Until the old copies are deleted, the old kits still open them: the removed guardian's old kit, together with other old kits (as many as the vault needs, less one) or the old owner kit, could read the files as they were before the rotation. Files added since are under the new key only.",
    awaitingNext: 'Save the new owner kit and confirm it; the old copies are deleted right after.',
    saveNewOwnerKit: 'Save the new owner kit',
  },
  windowTitle: {
    /** "Family documents — Guardians — Vault Desktop". */
    join: (parts: readonly string[]) => parts.join(' — '),
  },
  settings: {
    title: 'Settings',
    saved: 'Saved.',
    appearance: 'Appearance and start-up',
    theme: 'Theme',
    themeSystem: 'Follow the system',
    themeLight: 'Light',
    themeDark: 'Dark',
    launchAtLogin: 'Launch at login',
    loginBrowser: 'Browser mode cannot start itself at login; the desktop app can.',
    loginLinux: 'On Linux, add Vault Desktop to your desktop\'s "Startup Applications" instead.',
    reminders: 'Reminders',
    notifications: 'Show notifications',
    remindBefore: 'Remind me before a check-in is due',
    /** Days before a check-in is due: "7 days, 3 days and 1 day before"; none: only when due. */
    daysBefore: (days: readonly number[]) =>
      days.length === 0
        ? 'Only when it is due'
        : `${f.list(days.map((d) => f.count(d, { one: 'day', other: 'days' })))} before`,
    overdueEvery: 'When a check-in is overdue, remind me every',
    everyHours: (n: number) => (n === 1 ? 'hour' : f.count(n, { one: 'hour', other: 'hours' })),
    uploads: 'Uploads',
    concurrency: 'Files uploaded at the same time',
    confirmAbove: 'Ask before an upload costing more than (credits)',
    confirmAboveInvalid: 'Enter a whole number of credits, 0 or more.',
    reserve: 'Keep credits for this many months of check-ins',
    reserveMonths: (n: number) =>
      n === 0 ? 'None (not recommended)' : f.count(n, { one: 'month', other: 'months' }),
    reserveNote:
      "Uploads may not spend these credits unless you say so, so that a dead man's switch never starts the release just because the credits for check-ins ran out.",
    hideNames: 'File names and the service',
    hideNamesNote:
      "Uploads reach the service under a neutral name, without their folder, type or date. The real name is sealed inside the encrypted file, so heirs still get every file under its own name; this computer keeps showing the names of files it uploaded. A vault's Files tab lets you tell the service real names for that vault.",
    about: 'About this app',
    version: 'Version',
    platform: 'Platform',
    runningAs: 'Running as',
    desktopApp: 'Desktop app',
    browserMode: 'Browser mode (local bridge)',
    keysKeptIn: 'API keys are kept in',
    secretStore: {
      keychain: 'the system keychain',
      'encrypted-file': 'an encrypted file protected by your system login',
      memory: 'memory only (forgotten when the app quits)',
    },
  },
  vault: {
    notInList: 'This vault is not in the list of the connected account.',
    backToVaults: 'Back to vaults',
    allVaults: '← All vaults',
    sections: 'Vault sections',
    /** One name per tab of VAULT_TABS (navigation-store.ts). */
    tabs: {
      overview: 'Overview',
      guardians: 'Guardians',
      heirs: 'Heirs',
      assets: 'Assets',
      release: 'Release settings',
      activity: 'Activity',
    },
  },
  activity: {
    title: 'Activity on this computer',
    intro:
      "What you did with this vault from this computer, and what it saw happen on the service. The history is kept only here, in the app's own folder; nothing of it is sent anywhere.",
    filter: 'Show',
    filterAll: 'Everything',
    filters: {
      'check-in': 'Check-ins',
      upload: 'Files',
      people: 'Guardians and heirs',
      kits: 'Kits and keys',
      release: 'Release and practice',
      vault: 'Vault and credits',
    },
    exportCsv: 'Export CSV',
    exportJson: 'Export JSON',
    exported: (fileName: string) => `Saved as ${fileName} in your downloads.`,
    empty:
      'Nothing recorded yet. Check-ins, uploads, guardian and heir changes and release events appear here.',
    emptyFiltered: 'Nothing of this kind recorded yet.',
    count: (shown: number, total: number) =>
      shown >= total
        ? f.count(total, { one: 'entry', other: 'entries' })
        : `${f.number(shown)} of ${f.count(total, { one: 'entry', other: 'entries' })}`,
    more: 'Show older entries',
    when: 'When',
    what: 'What',
    how: 'How',
    problemTitle: 'The activity history needs attention',
    kinds: {
      'vault-created': 'Vault created',
      'vault-renamed': 'Vault renamed',
      'credits-added': 'Credits added',
      'practice-started': 'Practice release started',
      'practice-passed': 'Practice passed',
      'check-in': 'Checked in',
      'check-in-failed': 'Check-in did not go through',
      upload: 'Backup finished',
      'files-deleted': 'Files deleted from the vault',
      'guardian-added': 'Guardian added',
      'guardian-removed': 'Guardian removed',
      'heir-added': 'Heir added',
      'heir-removed': 'Heir removed',
      'kit-handed-over': 'Kit handed over',
      'kit-taken-back': 'Kit hand-over taken back',
      'release-configured': 'Release trigger set',
      'release-started': 'Release started',
      'release-cancelled': 'Release cancelled',
      released: 'Released to the heirs',
      'owner-kit-confirmed': 'Owner kit saved and confirmed',
      'vault-key-imported': 'Vault key put on this computer',
      'vault-key-replaced': 'Lost vault key replaced',
    },
    sources: {
      window: 'By hand',
      tray: 'From the tray',
      reminder: 'From a reminder',
      unlock: 'On unlock',
      service: 'Seen on the service',
    },
    checkedInOnUnlock: 'Checked in on unlock',
    nextDue: (date: string) => `Next check-in due ${date}.`,
    note: (note: string) => `Note: ${note}`,
    uploaded: (files: number, failed: number) =>
      failed > 0
        ? `${f.count(files, { one: 'file', other: 'files' })} stored, ${f.number(failed)} failed.`
        : `${f.count(files, { one: 'file', other: 'files' })} stored.`,
    spent: (credits: number) => `Cost ${f.credits(credits)}.`,
    creditsAdded: (credits: number) => `${f.credits(credits)} added to the account, for every vault on it.`,
    deleted: (files: number) => `${f.count(files, { one: 'file', other: 'files' })} the heirs no longer get.`,
    names: (names: readonly string[], more: boolean) =>
      more ? f.list([...names.map(isolateName), '…']) : f.list(names.map(isolateName)),
    frequency: {
      weekly: 'check in weekly',
      biweekly: 'check in every two weeks',
      monthly: 'check in monthly',
      quarterly: 'check in every three months',
    },
    triggers: {
      dead_man_switch: "Dead man's switch",
      manual: 'Manual release',
      guardian_claim: 'Guardians claim',
    },
  },
  checkInLinks: {
    title: 'Check-in link in reminder e-mails',
    off: 'Off (safer): reminder e-mails tell you to check in in the app and carry no link, so reading your e-mail is not enough to check in for you.',
    on: 'On: each reminder e-mail carries a one-step check-in link. Anyone who can read your mail can check in for you.',
    turnOn: 'Put a check-in link in reminders…',
    confirmTitle: 'Put a one-step check-in link in reminders?',
    confirm: 'Put the link in reminders',
    tradeOff:
      'Anyone who can read your mail can check in for you. Someone with access to your mailbox (a shared or stolen password, your e-mail provider) could keep putting the release off, and your heirs would receive nothing while your credits last.',
    convenience:
      'In exchange you can check in from the e-mail without opening this app: one click, then a confirmation page. Each link works once, for one deadline; turning this off makes links already sent stop working.',
    turnOff: 'Take the link out of reminders',
    turnedOn: 'Reminder e-mails now carry a one-step check-in link.',
    turnedOff: 'Reminder e-mails no longer carry a check-in link, and links already sent stop working.',
  },
  unlockCheckIn: {
    title: 'Check-in on unlock',
    toggle: 'Check in when I unlock this computer',
    note: "Unlocking the computer counts as a sign of life: the app checks in for you, at most once per check-in period and only once more than half of it has passed, so check-ins do not cost credits on every unlock. Never while a vault is releasing, and only for vaults with a dead man's switch.",
    keyNote:
      "It uses a read-and-check-in key (sk_agent_), kept in this computer's key store, never your full-access key.",
    keyCan:
      'Whoever holds that key can read, on the service: your vaults and their settings, the names of your files as the service stores them, the names and e-mail addresses of your guardians and heirs, and your encrypted files (they download them, but cannot open them without the vault key or enough kits). They can also check in, which spends credits and keeps putting the release off.',
    keyCannot:
      'They cannot open your files, upload, delete, add or remove guardians or heirs, change the release, or start or cancel one.',
    keyCreated: (last4: string, where: string) =>
      `A read-and-check-in key ending in ${last4} was made by the app for the service on this computer and is kept in ${where}.`,
    keyPasted: (last4: string, where: string) =>
      `Your read-and-check-in key ending in ${last4} is kept in ${where}.`,
    notDurable:
      'This computer has no keychain, so the key is forgotten when the app quits; paste it again after a restart (the service on this computer gets a new one by itself).',
    keyMissing:
      'This computer no longer holds the read-and-check-in key for this service, so unlocking does not check in. Paste the key again.',
    pasteLabel: 'Read-and-check-in key (sk_agent_…)',
    pasteHelp: (service: string) =>
      `Create a key of the kind "agent" (read and check in only) in the dashboard settings of ${service} and paste it here. A full-access key (sk_human_) is refused: kept here, it could change or delete the vault. An agent key can still read what the note above lists, so keep it as private as your e-mail.`,
    turnOn: 'Turn on',
    turnedOn: 'Turned on.',
    turnedOff: 'Turned off; the read-and-check-in key was removed from this computer.',
    turnedOffRevoked:
      'Turned off. The read-and-check-in key was revoked on the service and removed from this computer: it no longer works anywhere.',
    turnedOffStillValid: (last4: string, service: string) =>
      `Turned off, and the key was removed from this computer. It still works on ${service}, though: this service offers the app no way to revoke keys. Revoke the key ending in ${last4} in the dashboard settings of ${service}, or ask its operator to (admin revoke-key).`,
    noConnection: 'Connect to a Vault Service first (Settings → Connections).',
    noDesktop:
      'Browser mode never sees the computer being unlocked; the desktop app does. The setting and its key are kept for it.',
  },
  firstRun: {
    title: 'Set up Vault Desktop',
    lead: 'Your files are encrypted on this computer before they go anywhere. Choose where your vault lives:',
    heirPointer: 'Did someone leave you their files? You do not need to set anything up here.',
    goToRecovery: 'Go to Recovery',
    heirPointerEnd: "and follow the steps with the e-mail you received and the guardians' kits.",
    connectTitle: 'Connect to a vault service',
    connectNote: "Use the address and API key from your vault service's dashboard settings.",
    serviceAddress: 'Service address',
    apiKey: 'API key',
    apiKeyPlaceholder: 'sk_human_… or sk_agent_…',
    keyKept: (store: string) =>
      `The key is checked by listing your vaults, then kept in ${store}. This window never sees it again.`,
    checkingKey: 'Checking the key…',
    connect: 'Connect',
    localTitle: 'Start locally on this computer',
    localNote: (credits: number) =>
      `Runs the vault service inside this app, on this computer only. You get an account with ${f.credits(credits, { one: 'trial credit', other: 'trial credits' })} and a first vault whose key is made on this device.`,
    email: 'Your e-mail address',
    emailNote: (store: string) =>
      `Used for the owner alerts the service records. The key is kept in ${store}.`,
    starting: 'Starting…',
    startLocally: 'Start locally',
    /** Where API keys are kept, as the end of a sentence. */
    secretStore: {
      keychain: 'your system keychain',
      'encrypted-file': 'a file encrypted with your system login',
      memory: 'memory only: this computer has no keychain, so you will enter the key again after a restart',
    },
    /** The local service's key, as the end of a sentence: it is made again at every start. */
    localKeyStore: {
      keychain: 'your system keychain',
      'encrypted-file': 'a file encrypted with your system login',
      memory:
        'memory only (this computer has no keychain); the service on this computer hands the app a new one at every start, so there is nothing to type again',
    },
  },
  connections: {
    title: 'Connections',
    keysKeptIn: (store: string) =>
      `API keys are kept in ${store}. This window only ever sees a key's kind and last four characters.`,
    notDurable: 'Keys are not kept safely across restarts.',
    trialTitle: 'The connection in use is a trial',
    trialNote:
      ': its vault service runs inside this app, and heirs cannot reach this computer. To protect your files for real, connect to a self-hosted or remote vault service below (“Connect another service…”) and make your vault there.',
    notConnected: 'Not connected.',
    setUp: 'Set up a connection',
    inUse: 'In use',
    onThisComputer: 'On this computer',
    keyKind: {
      agent: 'agent key (read and check-in only)',
      human: 'owner key',
      unknown: 'key',
    },
    keptIn: (store: string) => `kept in ${store}`,
    keyMissing: (store: string) =>
      `gone: it was kept in ${store}, which forgot it when the app closed. Choose Replace key and enter it again.`,
    keySaved: (last4: string) => `Checked and saved: the service accepted the key ending …${last4}.`,
    keyStore: {
      keychain: 'the keychain',
      'encrypted-file': 'an encrypted file',
      memory: 'memory',
    },
    use: 'Use this one',
    replaceKey: 'Replace key',
    forget: 'Forget',
    newKeyFor: (label: string) => `New API key for ${label}`,
    newKeyPlaceholder: 'New key: sk_human_… or sk_agent_…',
    checkAndSave: 'Check and save',
    serviceAddress: 'Service address',
    apiKey: 'API key',
    checking: 'Checking…',
    connect: 'Connect',
    connectAnother: 'Connect another service…',
    forgetTitle: (label: string) => `Forget ${label}?`,
    forgetConfirm: 'Forget connection',
    forgetNote:
      'The API key is deleted from this computer. Nothing changes on the service: your vaults, files and guardians stay.',
    forgetLocal: 'The local service keeps its data; start locally again to reuse it.',
    forgetRemote: 'Connect again with the key to see them.',
  },
  credits: {
    title: 'Credits',
    note: 'Check-ins and stored files cost credits. When they run out, check-ins fail — and a missed check-in starts the release.',
    invalid: (max: number) => `Enter a whole number of credits between 1 and ${f.number(max)}.`,
    toAdd: 'Credits to add',
    adding: 'Adding…',
    add: 'Add credits',
    addHereNote: 'The vault service on this computer keeps its own balance; credits added here cost nothing.',
    buy: "Buy credits from the service's operator",
    opens: (url: string) =>
      `Opens ${url} in your browser: the page the operator of this service gives for credits.`,
    nowhereToBuy:
      'This service does not say where to buy credits: ask the operator of this service (whoever runs it) to add credits to your account.',
    added: (balance: number) => `Added. The balance is now ${f.credits(balance)}.`,
  },
  mail: {
    title: 'E-mail to heirs and guardians',
    trial:
      'No e-mail leaves this computer: the vault service runs here, as a trial. Heirs and guardians would not be told anything.',
    notConfigured:
      'The service has no e-mail set up: heirs and guardians would not be told anything. Ask whoever runs it to set up e-mail, then send a test.',
    configured: 'The service says it can send e-mail. Send a test to your own address to be sure it arrives.',
    unknown: 'This service does not say whether it sends e-mail.',
    sending: 'Sending…',
    send: 'Send a test e-mail',
    sentTo: "Sent to your account's e-mail address.",
    cannotTest: 'This service cannot send a test e-mail from the app.',
    lastTest: 'Last test:',
  },
  localMail: {
    title: 'Mail from the local trial',
    lead: 'Every e-mail the vault service on this computer would have sent — invitations, practice letters, kit-check reminders, release notices — newest first. Open one and follow its links to play the guardian or the heir yourself: accept an invitation, confirm a kit check, make a claim.',
    privacy:
      "Shown only for the service this app runs on this computer, read inside the app and never sent anywhere. These messages hold your guardians' and heirs' personal links: fine for a trial you run alone, never for a real service, where each person gets their own mail and nobody else sees it.",
    none: 'Nothing yet. Add a guardian or an heir to a vault, or start a practice: the e-mail they would get shows up here.',
    count: (n: number) => `${f.count(n, { one: 'message', other: 'messages' })}, newest first.`,
    to: 'To',
    when: 'When',
    status: 'Sent?',
    sent: (at: string) => `Sent ${f.dateTime(at)}`,
    notSentNoServer: 'Not sent: no e-mail server is set up on this computer',
    notSentFailed: (attempts: number, error: string) =>
      `Not sent: the e-mail server failed ${f.count(attempts, { one: 'time', other: 'times' })} (${error})`,
    close: 'Close',
    linksElectron: 'Its links open in your web browser, as they would for the person it is addressed to.',
    linksBrowser: 'Its links open in a new tab, as they would for the person it is addressed to.',
    kind: (kind: string) =>
      ({
        guardian_invitation: 'Guardian invitation',
        heir_access: 'Access for an heir',
        rehearsal_heir: 'Practice letter to the heir',
        rehearsal_guardian: 'Practice letter to a guardian',
        kit_check_reminder: 'Kit check reminder',
        kit_check_overdue: 'Kit check overdue',
        check_in_reminder: 'Check-in reminder',
        release_cancelled: 'Release cancelled',
      })[kind] ?? (kind.startsWith('contestation_alert') ? 'Release alert' : 'E-mail'),
    seeMail: 'See the e-mail they would have received',
    seeMailPractice: 'See the practice letters they would have received',
    heirsLead:
      'Heirs are written to when a release or a practice starts; on this trial nothing leaves the computer.',
    seeAllMail: 'See the mail from the local trial',
    servicePanelLead: 'What it would have sent is kept here instead, for you to read and follow.',
  },
  vaults: {
    title: 'Vaults',
    agentKey: 'agent key',
    ownerKey: 'owner key',
    refreshing: 'Refreshing…',
    refresh: 'Refresh',
    loading: 'Loading your vaults…',
    firstTitle: 'Create your first vault',
    firstNote:
      'This account has no vault yet. A vault holds the files you leave to the people you choose. Give it a name, choose how many guardians must come together to open it, and create it: its key is made on this computer.',
    newVault: 'New vault',
    name: 'Name',
    optional: '(optional)',
    namePlaceholder: 'e.g. Family papers',
    guardiansNeeded: 'Guardians needed to recover',
    presetStandard: 'Any 2 of 3 guardians (standard)',
    presetEnhanced: 'Any 3 of 5 guardians (enhanced)',
    creating: 'Creating…',
    create: 'Create vault',
    releasingAlarm: (days: number) =>
      `Releasing to heirs: ${f.count(days, { one: 'day', other: 'days' })} left to cancel`,
    claimAlarm: (count: number, needed: number) =>
      `claimed a release: ${f.number(count)} of ${f.number(needed)} guardian claims needed`,
    credits: 'Credits',
    contents: 'Contents',
    contentsCounts: (files: number | null, blobs: number, guardians: number, heirs: number) =>
      [
        files !== null
          ? f.count(files, { one: 'file', other: 'files' })
          : f.count(blobs, { one: 'stored blob', other: 'stored blobs' }),
        f.count(guardians, { one: 'guardian', other: 'guardians' }),
        f.count(heirs, { one: 'heir', other: 'heirs' }),
      ].join(' · '),
    release: 'Release',
    notConfigured: 'Not configured',
    nextCheckIn: 'Next check-in',
    state: { active: 'Active', releasing: 'Releasing', released: 'Released' },
  },
  readiness: {
    nextStep: 'Next step:',
    readyTitle: 'Every step for a release that reaches your heirs is done.',
    trialTitle: 'Trial — heirs cannot reach this computer.',
    trialNote:
      'The vault service runs inside this app, on this computer only. On the day, your heirs and guardians could not reach it, and no e-mail leaves this computer. Try things out here; to protect your files for real, connect to a self-hosted or remote vault service.',
    toConnections: 'Settings → Connections',
    title: 'Ready for the day?',
    allDone:
      'Every step is done: when the release happens, your heirs and guardians can be reached and can open the files.',
    notYet:
      'Until every step below is done, this vault may not reach your heirs on the day. Each open step has one button that takes you to its fix.',
    done: 'Done:',
    toDo: 'To do:',
    sending: 'Sending…',
  },
  writeAccess: {
    notConnected: 'Connect to a vault service first.',
    agentKey: (last4: string) =>
      `This key can read and check in only (agent key ending ${last4}). To make changes, connect with an sk_human_ key in Settings.`,
  },
  runway: {
    none: 'not enough for a single check-in',
    checkIns: (n: number) => f.count(n, { one: 'check-in', other: 'check-ins' }),
    /** "50 check-ins (about 4 years of monthly check-ins)". */
    checkInsSpan: (n: number, span: string, frequency: 'weekly' | 'biweekly' | 'monthly' | 'quarterly') =>
      `${f.count(n, { one: 'check-in', other: 'check-ins' })} (${span} of ${frequency} check-ins)`,
    aboutYears: (n: number) => `about ${f.count(n, { one: 'year', other: 'years' })}`,
    aboutMonths: (n: number) => `about ${f.count(n, { one: 'month', other: 'months' })}`,
    days: (n: number) => f.count(n, { one: 'day', other: 'days' }),
  },
  encryptedExport: {
    title: 'Encrypted copy for the heirs',
    intro:
      "Copies this vault's encrypted files, exactly as the service holds them, into a folder you choose (a USB stick for a drawer), with the recovery guide, the format description, the recovery page (for heirs with only a web browser) and the recovery tool. Nothing is decrypted: the copy opens only with enough of the guardians' kits or your owner kit, so keep it apart from them.",
    folderLabel: 'Folder for the copy (new or empty)',
    folderHelp:
      'The full path of a new or empty folder on the computer running Vault Desktop, for example /media/you/USB/family-vault. A folder that already holds files is refused, never mixed with.',
    chooseFolder: 'Choose folder…',
    start: 'Export an encrypted copy…',
    exporting: 'Exporting…',
    progress: (file: number, files: number, done: number, total: number) =>
      `Encrypted file ${f.number(file)} of ${f.number(files)} · ${f.bytes(done)} of ${f.bytes(total)}`,
    progressLabel: 'Export progress',
    done: (files: number, bytes: number, folder: string) =>
      `Exported ${f.count(files, { one: 'encrypted file', other: 'encrypted files' })} (${f.bytes(bytes)}) into ${folder}. On the Recovery screen, "I have the encrypted files" with this folder's path recovers them, as does the recovery tool.`,
    missingPage:
      'The recovery page (for recovering with only a web browser) was not available to this app, so it is not in the folder: README-FOR-HEIRS.txt there says where to get it.',
    missingTool:
      'The recovery tool was not available to this app, so it is not in the folder: README-FOR-HEIRS.txt there says where to get it (or run npm run pack:recovery in the project and export again).',
    missingDocs:
      'RECOVERY.md or FORMAT.md could not be included: README-FOR-HEIRS.txt there says where to get them.',
  },
  overview: {
    standsTitle: 'Where this vault stands',
    nextDueShort: (when: string) => `next check-in ${when}`,
    status: 'Status',
    state: 'State',
    credits: 'Credits',
    balanceCovers: 'The balance covers',
    covers: (checkIns: string, storage: string) => `${checkIns}, or about ${storage} of new encrypted files`,
    contents: 'Contents',
    contentsCounts: (
      files: number | null,
      blobs: number,
      guardians: number,
      preset: 'standard' | 'enhanced',
      heirs: number,
    ) =>
      `${files !== null ? f.count(files, { one: 'file', other: 'files' }) : f.count(blobs, { one: 'stored blob', other: 'stored blobs' })} · ${f.count(guardians, { one: 'guardian', other: 'guardians' })} (${preset === 'standard' ? 'any 2 of 3' : 'any 3 of 5'}) · ${f.count(heirs, { one: 'heir', other: 'heirs' })}`,
    vaultKey: 'Vault key',
    keyOnDevice: 'On this device',
    keyUntilClose: 'On this device until the app closes',
    keyNotOnDevice: 'Not on this device (uploads and kits need it)',
    ownerKit: 'Owner kit',
    ownerKitConfirmed: (at: string) => `Confirmed ${f.date(at)}`,
    ownerKitNotConfirmed: 'Not confirmed',
    created: 'Created',
    release: 'Release',
    trigger: 'Trigger',
    checkIn: 'Check-in',
    nextDue: 'Next check-in due',
    nextDueAt: (at: string, relative: string) => `${f.dateTime(at)} (${relative})`,
    ifItStarts: 'If it starts',
    daysToCancel: (days: number) =>
      `You have ${f.count(days, { one: 'day', other: 'days' })} to cancel before heirs are told.`,
    noTrigger: 'No release trigger yet: nothing will ever reach your heirs.',
    chooseTrigger: 'Choose a trigger',
    checkInTitle: 'Check in',
    checkInNote: (cost: number) =>
      `Tells the service you are still here and resets the dead man's switch. Costs ${f.count(cost, { one: 'credit', other: 'credits' })}. Agent keys may check in too.`,
    note: 'Note (optional)',
    notePlaceholder: 'e.g. all well, back from holiday',
    checkingIn: 'Checking in…',
    otherTrigger: "Check-ins apply to the dead man's switch trigger; this vault uses another trigger.",
    noSwitch: "Choose the dead man's switch in Release settings to start checking in.",
    checkedIn: (due: string, days: number) =>
      `Checked in. Next check-in due ${f.dateTime(due)} — ${f.count(days, { one: 'day', other: 'days' })} from now.`,
    lastCheckIn: 'Last check-in from this device:',
    lastCheckInAt: (at: string, note: string | null) =>
      note ? `${f.dateTime(at)} — “${note}”` : f.dateTime(at),
    noneYet: 'none yet',
  },
  vaultTitle: {
    name: 'Vault name',
    placeholder: 'e.g. Family papers',
    saving: 'Saving…',
    save: 'Save name',
    emptyHint: "Leave it empty to show the vault's id instead.",
    renameLabel: (label: string) => `Rename ${label}`,
    rename: 'Rename',
  },
  deleteVault: {
    title: 'Delete this vault',
    note: 'Removes the vault and everything in it from the service. Use it for a vault you made by mistake or no longer want anyone to receive.',
    button: 'Delete vault…',
    notOffered:
      "The connected service does not let the app delete vaults. Use the service's own website, or ask whoever runs it.",
    confirmTitle: (label: string) => `Delete ${label}?`,
    confirm: 'Delete the vault for good',
    cannotUndo: 'This cannot be undone.',
    deletes: (losses: string) => `The service deletes ${losses}.`,
    losses: (files: number, guardians: number, heirs: number) =>
      f.list([
        f.count(files, { one: 'file', other: 'files' }),
        f.count(guardians, { one: 'guardian', other: 'guardians' }),
        f.count(heirs, { one: 'heir', other: 'heirs' }),
      ]),
    nobody: 'Nobody will receive anything from this vault: there is nothing left to release.',
    kits: "The guardians' kits and your owner kit stop mattering: there is nothing left for them to open. They can be destroyed.",
    forgets: (losses: string) =>
      `The service forgets ${losses}: it stops listing them and nobody is sent anything.`,
    notePermanent:
      "Takes the vault off the service: it stops listing it, and nobody will be sent anything from it. This service keeps files on a permanent store (Arweave): the encrypted files themselves are never erased, and the guardians' kits and your owner kit keep opening them.",
    permanentStore:
      "This service keeps files on a permanent store (Arweave): deleting the vault does not erase them. The encrypted files stay public for ever, and anyone who holds enough of the guardians' kits, or your owner kit, can still open them.",
    permanentKits:
      "So the guardians' kits and your owner kit keep mattering for as long as any of them exists: nothing the service or this app does can close those files.",
    unknownStore:
      "This service does not say whether deleting erases its stored copies of the encrypted files. Until its operator confirms that it does, treat the guardians' kits and your owner kit as still able to open them.",
    localFiles: 'The files on this computer are not touched.',
  },
  personForm: {
    add: (who: string) => `Add ${who}`,
    name: 'Name',
    email: 'E-mail',
    emailPlaceholder: 'name@example.com',
    wallet: 'Wallet address',
    walletPlaceholder: '0x…',
    optional: ' (optional)',
    adding: 'Adding…',
  },
  rehearsalText: {
    mailSent: (to: string, at: string) =>
      `Test e-mail sent to ${to} on ${f.dateTime(at)}. Check that it arrived (and is not in spam): heirs and guardians get their e-mails the same way.`,
    mailSecurity: {
      tls: 'It travelled to the mail server encrypted (TLS).',
      loopback: 'It went to a mail server on the service’s own computer, without crossing a network.',
      'insecure-plaintext':
        'Warning: it travelled to the mail server unencrypted, because the service’s operator turned TLS off: the mail password and every link to guardians and heirs can be read on the way. Ask the operator to turn TLS back on.',
    },
    mailFailed: (to: string, at: string, error: string | null) =>
      `The test e-mail to ${to} could not be sent (${f.dateTime(at)})${error ? `: ${error}` : ''}. Check the service's mail settings, or ask whoever runs the service, then send another.`,
    invited: (heir: string, guardians: number) =>
      guardians
        ? `Practice e-mail to ${heir}, and a practice kit to ${f.count(guardians, { one: 'guardian', other: 'guardians' })}`
        : `Practice e-mail to ${heir}`,
    startedNoMail: (heir: string) => `Practice started for ${heir} (no e-mail was sent)`,
    opened: (heir: string) => `${heir} opened the practice access`,
    downloaded: (file: string) => `Downloaded the practice file (${isolateName(file)})`,
    passed: "Opened it with the guardians' practice kits: passed",
    waitingInvited: 'the practice to start',
    waitingOpened: (heir: string) => `${heir} to open the practice access`,
    waitingDownloaded: (heir: string) => `${heir} to download the practice file`,
    waitingPassed: (heir: string) => `${heir} to open it with the guardians' practice kits`,
    running: (heir: string, waitingFor: string | null) =>
      waitingFor
        ? `Practice running with ${heir}, waiting for ${waitingFor}.`
        : `Practice running with ${heir}.`,
    reachedEnd: 'It has reached its end date and will close shortly.',
    endsOn: (at: string) => `It ends by itself on ${f.dateTime(at)}.`,
    passedOn: (at: string | null, heir: string) =>
      `Passed on ${f.dateTime(at)}: ${heir} collected the guardians' practice kits and opened the practice file, the way they would on the day. The real kits were not used, so this says nothing about them: whether each guardian holds a working kit counts from your hand-over confirmations.`,
    expiredOn: (at: string, heir: string) =>
      `Expired on ${f.dateTime(at)} before ${heir} finished. Nothing was released. Start another practice when they have time.`,
    cancelled: (heir: string) =>
      `Ended before it finished. Nothing was released; ${heir}'s practice access no longer works.`,
  },
  rehearsal: {
    title: 'Practice the release',
    /** The intro is three parts around the emphasised word "practice". */
    introStart:
      'A practice run lets your heir learn the steps before it matters, without the real key. The app makes a throwaway practice key and one practice kit per guardian; each guardian gets theirs in an e-mail marked',
    practiceWord: 'practice',
    introEnd: (threshold: number, days: number) =>
      `and your heir collects ${f.count(threshold, { one: 'practice kit', other: 'practice kits' })} from them, as on the day, to open a practice file. The real kits stay where they are: a practice never uses them and never opens the vault. It costs nothing, releases nothing, and ends by itself after ${f.count(days, { one: 'day', other: 'days' })}.`,
    notOffered:
      'The connected service does not offer practice runs. A service that does (such as a self-hosted Vault Service) lets you rehearse the release from here.',
    noMailTrial:
      'No e-mail leaves this computer (the vault service runs here, as a trial), so the heir and the guardians would not be told of a practice — nor of the real release. Connect to an always-on service that sends e-mail (Settings → Connections).',
    noMail:
      'This service has no e-mail set up, so the heir and the guardians would not be told of a practice — nor of the real release. Ask whoever runs the service to set up e-mail, then send a test from Settings.',
    looking: 'Looking for a practice run…',
    current: 'Current practice',
    last: 'Last practice',
    done: 'Done:',
    notYetLabel: 'Not yet:',
    notYet: 'not yet',
    failedReports: (n: number) =>
      `${n === 1 ? 'One attempt' : `${f.number(n)} attempts`} to open the practice file used kits that do not belong to this practice (real kits, or those of an earlier practice). Ask the guardians for the practice kit in this practice's e-mail.`,
    ending: 'Ending…',
    end: 'End practice',
    endNote: "The heir's practice access and the practice kits stop working at once.",
    addHeirFirst: 'Add an heir first: the practice is for one of them.',
    goToHeirs: 'Go to Heirs',
    needGuardians: (threshold: number) =>
      `A practice needs at least ${f.count(threshold, { one: 'guardian', other: 'guardians' })} who have not declined: each gets a practice kit.`,
    goToGuardians: 'Go to Guardians',
    startLabel: 'Start a practice',
    heir: 'Heir who practises',
    heirOption: (name: string, email: string) => `${name} (${email})`,
    sample: 'Practice file',
    sampleLetter: 'A practice letter the app writes',
    sampleLetterNote: 'Recommended. It says what it is and holds nothing of yours.',
    sampleOwn: 'A copy of one of my files',
    sampleOwnNote: (max: string) => `Up to ${max}; encrypted under the practice key, like the letter.`,
    sampleOwnWarning:
      'The service sends the practice kits in its e-mails, so whoever runs the service could read this copy. Choose a file you would not mind them reading.',
    chooseOwnFile: 'Choose a file',
    ownFileChosen: (name: string, size: string) => `${isolateName(name)} (${size})`,
    ownFileTooLarge: (max: string) =>
      `A practice file can be at most ${max}: choose a smaller file, or the practice letter.`,
    sampleLine: (name: string) => `Practice file: ${isolateName(name)}`,
    sampleReadable: 'a copy of your file; the service could read it',
    starting: 'Starting…',
    start: 'Start practice',
  },
  startRelease: {
    title: 'Start the release',
    manualNote: (days: number) =>
      `This vault uses the manual trigger: nothing happens until you start the release here. It begins with ${f.count(days, { one: 'day', other: 'days' })} in which you can still cancel; your heirs get access only when they end.`,
    button: 'Start release now…',
    notOffered:
      "The connected service cannot start a release from this app. Start it on the service's own website, or ask whoever runs the service. Until then nothing is released.",
    confirmTitle: 'Start the release now?',
    confirm: 'Start the release',
    period: (days: number) =>
      `Today a ${f.number(days)}-day contestation period begins. During it you are alerted, and you can cancel the release at any time from this app.`,
    whenItEnds: (endsOn: string) =>
      `When it ends — around ${f.date(endsOn)} — your heirs are told and get access to the vault's files. That cannot be taken back.`,
    toldNothing: 'Your heirs are told nothing before the period ends.',
    trial:
      'This is a trial on this computer: no e-mail leaves it, and your heirs cannot reach it. They would not be told, and could not get the files.',
    noMail:
      'This service has no e-mail set up: your heirs would not be told. Check the steps on the Overview first.',
  },
  vaultKey: {
    title: 'Vault key and owner kit',
    volatile: 'This computer keeps the vault key only until the app closes.',
    volatileConfirmed: 'Your owner kit is confirmed, so the key can be typed back in after a restart.',
    volatileUnconfirmed:
      'Save the owner recovery kit and confirm it before your first upload: it is the only lasting copy of the key.',
    onDevice:
      "The key that encrypts this vault's files is on this device. The owner recovery kit holds the same key as words: keep it with your important papers, and you can use the vault from a new computer.",
    confirmed: (at: string) => `✓ Owner kit saved and checked on ${f.dateTime(at)}.`,
    notConfirmed: 'Owner kit not confirmed yet: after saving it, type back a few of its words to check it.',
    kit: 'Owner recovery kit…',
    checkWords: 'I have saved it — check the words',
    notOnDevice:
      "This device does not hold this vault's key, so it cannot upload files or make guardian kits. Type the words from the vault's owner recovery kit to put the key here.",
    lost: 'The key of this vault is not on this computer any more: import the owner kit.',
    lostFrom: {
      memory:
        'It was kept only while the app ran, because this computer offers no keychain, so it went when the app closed.',
      keychain:
        "It was kept in this computer's keychain, which no longer gives it back (locked, out of reach, or the entry removed). If the keychain comes back, restart the app.",
      'encrypted-file':
        "It was kept in a file encrypted with this computer's protected storage, which can no longer open it.",
    },
    lostFingerprint: (fingerprint: string) =>
      `The owner kit of this key shows the fingerprint ${fingerprint}. The app makes no other key in its place: the vault's files and guardian kits open only with this one.`,
    words: 'Words from the owner recovery kit',
    checking: 'Checking…',
    import: 'Import the key',
    noKit: 'No owner kit?',
    noFiles:
      'This vault has no files yet, so nothing is lost if it gets a new key. Guardian kits are made again for the new key; any kit handed out before stops working.',
    newKey: 'Make a new key…',
    confirmTitle: 'Make a new key for this vault?',
    confirm: 'Make a new key',
    onlyIfLost:
      'Do this only if the old key is lost for good: no owner kit, and no computer that still holds it.',
    oldKitStops: 'A new key is made on this computer; the old owner kit no longer opens this vault.',
    newGuardianKits: (guardians: number) =>
      guardians > 0
        ? `New kits are made for your ${f.count(guardians, { one: 'guardian', other: 'guardians' })}: give each the new kit and ask them to destroy the old one.`
        : 'Guardian kits will be made for the new key when you add guardians.',
    thenSave: 'Then save and confirm the new owner kit.',
  },
  heirs: {
    title: 'Heirs',
    count: (n: number, max: number) => `${f.number(n)} of ${f.number(max)}`,
    note: (days: number) =>
      `Heirs are told nothing until a release completes: after the trigger fires and the ${f.number(days)}-day period to cancel ends, each heir receives full access to the vault.`,
    notListed: 'This service does not list heirs; shown are those added from this device.',
    none: 'No heirs yet.',
    name: 'Name',
    email: 'E-mail',
    wallet: 'Wallet',
    added: 'Added',
    actions: 'Actions',
    removeLabel: (name: string) => `Remove heir ${name}`,
    remove: 'Remove',
    addTitle: 'Add an heir',
    limit: (max: number) =>
      `A vault can have ${f.count(max, { one: 'heir', other: 'heirs' })}; remove one to add another.`,
    who: 'heir',
    add: 'Add heir',
    removeTitle: (name: string) => `Remove ${name}?`,
    removeConfirm: 'Remove heir',
    removeNote: (name: string) =>
      `${name} will not receive access if the vault is released. You can add them again later.`,
  },
  assets: {
    categories: { document: 'Documents', image: 'Images', video: 'Videos', audio: 'Audio', other: 'Other' },
    realNames: 'Tell the service the real names of files uploaded to this vault',
    realNamesOff:
      'Off (recommended): new files reach the service as file-….vault, with no folder, type or date. Their real names travel only inside the encrypted files; this computer shows them from its own list of uploads, and elsewhere they appear once the files are downloaded.',
    realNamesOn:
      'On: the service learns the name, folder path, type and modification time of every file uploaded to this vault from now on (never its contents). Files already uploaded keep the name they were sent with.',
  },
  fileLibrary: {
    title: 'Files',
    search: 'Find a file by name',
    searchPlaceholder: 'Name contains…',
    category: 'Category',
    all: 'All',
    folders: 'Folders',
    top: 'All files',
    list: 'Files in this vault',
    name: 'Name',
    size: 'Size',
    added: 'Added',
    blob: 'Held in',
    folderLabel: (name: string) => `Open folder ${revealControls(name)}`,
    folderSummary: (files: number, size: string) =>
      `${f.count(files, { one: 'file', other: 'files' })} · ${size}`,
    bundle: '· bundle',
    nameHidden: ' · name hidden',
    hiddenName: (name: string) => `The service knows this blob only as ${isolateName(name)}`,
    blobTitle: (id: string) => `Storage id of the encrypted blob: ${id}`,
    noBlob: 'a blob from another computer',
    noBlobTitle:
      "Another computer's vault manifest lists this file; the blob holding it hides its name from the service, so which one it is shows once the blobs are read.",
    fromManifest: "Listed by another computer's vault manifest",
    loading: 'Reading the list of files…',
    none: 'No files yet. Back up files or folders with the panel above.',
    noMatch: 'No file here matches. Clear the search or choose another category.',
    shown: (shown: number, total: number) =>
      `${f.number(shown)} shown of ${f.count(total, { one: 'file', other: 'files' })}`,
    unnamedBlobs: (n: number) =>
      `${f.count(n, { one: 'stored blob holds', other: 'stored blobs hold' })} files uploaded from another computer with their names sealed inside, and no vault manifest read here names them, so they are not listed. The manifest is read when this vault's key is on this computer (typed in from the owner kit's words); recovery unpacks them in any case.`,
    manifestUnread:
      'The vault manifest could not be read from the service just now, so files added from another computer may be missing. Check the connection and open this tab again.',
  },
  fileActions: {
    actions: 'Actions',
    open: 'Open',
    opening: 'Opening…',
    openLabel: (name: string) => `Open ${revealControls(name)}`,
    save: 'Save…',
    saveLabel: (name: string) => `Save ${revealControls(name)} into a folder`,
    remove: 'Delete…',
    removeLabel: (name: string) => `Delete ${revealControls(name)} from the vault`,
    saveAll: 'Save all files…',
    saveFolder: 'Save this folder…',
    removeFolder: 'Delete this folder…',
    openedDefaultApp: (name: string) =>
      `Opened ${isolateName(name)} with your default app, from a private copy on this computer that is deleted when Vault Desktop quits. Changes made to it are not backed up: save it elsewhere first.`,
    openedDownload: (name: string) =>
      `${isolateName(name)} was decrypted and handed to the browser as a download. It is now an ordinary, unencrypted file in your downloads: delete it when you are done.`,
    openFailed: (name: string) => `Could not open ${isolateName(name)}`,
    chosen: (kind: 'file' | 'folder' | 'vault', name: string, files: number, bytes: string) =>
      kind === 'vault'
        ? `All ${f.count(files, { one: 'file', other: 'files' })} of this vault (${bytes})`
        : kind === 'folder'
          ? `The folder ${isolateName(name)}: ${f.count(files, { one: 'file', other: 'files' })} (${bytes})`
          : `${isolateName(name)} (${bytes})`,
  },
  fileSave: {
    title: 'Save decrypted files',
    intro:
      'The files are downloaded, checked and decrypted on this computer, then written into the folder you choose as ordinary, unencrypted files. Files already there are never replaced.',
    folderLabel: 'Save into this folder',
    folderHelp:
      'The full path of a folder on the computer running Vault Desktop, for example /home/you/Documents/from-vault. It is created if needed.',
    chooseFolder: 'Choose folder…',
    start: 'Save',
    resume: 'Save again to finish',
    saving: 'Saving…',
    cancel: 'Stop',
    close: 'Close',
    progressLabel: 'Saving progress',
    progress: (file: number, files: number, done: number, total: number) =>
      `File ${f.number(file)} of ${f.number(files)} · ${f.bytes(done)} of ${f.bytes(total)} downloaded and checked`,
    done: (saved: number, kept: number, bytes: number, folder: string) =>
      `Saved ${f.count(saved, { one: 'file', other: 'files' })} (${f.bytes(bytes)}) into ${revealControls(folder)}.${kept > 0 ? ` ${f.count(kept, { one: 'file was', other: 'files were' })} already there with the same content, and left as ${kept === 1 ? 'it was' : 'they were'}.` : ''}`,
    failedTitle: (n: number) => `${f.count(n, { one: 'file was', other: 'files were' })} not saved:`,
  },
  fileRemoval: {
    title: (kind: 'file' | 'folder' | 'vault') =>
      kind === 'file'
        ? 'Delete this file from the vault?'
        : kind === 'folder'
          ? 'Delete this folder from the vault?'
          : 'Delete every file from the vault?',
    reading: 'Working out what deleting changes…',
    heirsLose: (files: number, bytes: string) =>
      `Your heirs will no longer get ${files === 1 ? 'this file' : `these ${f.number(files)} files`} (${bytes}). Copies on this computer are not touched.`,
    more: (n: number) => `…and ${f.count(n, { one: 'other file', other: 'other files' })}`,
    blobs: (n: number) =>
      `${f.count(n, { one: 'encrypted blob holds', other: 'encrypted blobs hold' })} only these files and ${n === 1 ? 'is' : 'are'} taken off the service.`,
    repack: (n: number) =>
      `${n === 1 ? 'A bundle that holds' : `${f.number(n)} bundles that hold`} other files too ${n === 1 ? 'is' : 'are'} stored again without the deleted ones, then the old ${n === 1 ? 'one is' : 'ones are'} taken off, so the deleted files leave the service entirely.`,
    permanent:
      "This service keeps everything it stores for good (a permanent store such as Arweave): the encrypted copies of these files stay there, readable by anyone who ever holds enough guardians' kits. Deleting only takes them off the vault's list, so your heirs' recovery leaves them out.",
    unknownStore:
      "This service does not say whether it can forget what it stores, so the encrypted copies of these files may stay on it. Your heirs' recovery leaves them out in any case.",
    cost: (credits: string) =>
      `This costs ${credits}: the vault's new list of its files (what your heirs recover by) is stored, and any bundle stored again.`,
    confirm: 'Delete',
    done: (removed: number) =>
      `Deleted ${f.count(removed, { one: 'file', other: 'files' })} from the vault. The vault's list of its files was written again without ${removed === 1 ? 'it' : 'them'}.`,
    contentKept: (n: number) =>
      `The service kept the bytes of ${f.count(n, { one: 'encrypted blob', other: 'encrypted blobs' })} (a permanent store).`,
    close: 'Close',
  },
  uploadList: {
    state: {
      queued: 'Waiting',
      checking: 'Checking',
      uploading: 'Uploading',
      done: 'Stored',
      skipped: 'Skipped',
      failed: 'Failed',
      cancelled: 'Cancelled',
    },
    /** One state's count in the summary: "1,500 stored". */
    stateCount: {
      queued: (n: number) => `${f.number(n)} waiting`,
      checking: (n: number) => `${f.number(n)} checking`,
      uploading: (n: number) => `${f.number(n)} uploading`,
      done: (n: number) => `${f.number(n)} stored`,
      skipped: (n: number) => `${f.number(n)} skipped`,
      failed: (n: number) => `${f.number(n)} failed`,
      cancelled: (n: number) => `${f.number(n)} cancelled`,
    },
    /** "2,000 files (1 bundle of small files)". */
    files: (files: number, bundles: number) =>
      bundles > 0
        ? `${f.count(files, { one: 'file', other: 'files' })} (${f.count(bundles, { one: 'bundle', other: 'bundles' })} of small files)`
        : f.count(files, { one: 'file', other: 'files' }),
  },
  dialog: {
    keep: 'Keep as is',
    working: 'Working…',
  },
  kitViewer: {
    downloaded: (file: string) =>
      `Downloaded ${isolateName(file)}. Open it and print it (Ctrl+P / Cmd+P, or "Save as PDF").`,
    saved: (path: string) => `Saved ${revealControls(path)}`,
    printed: 'Sent to the printer.',
    notSaved: 'Not saved.',
    browserMode:
      'Browser mode cannot print or make PDFs itself: download the kit page and print it from your browser.',
    close: 'Close',
    download: 'Download page',
    print: 'Print…',
    pdf: 'Save as PDF…',
    guardianTitle: 'Guardian kit',
    guardianDetail: (
      name: string,
      index: number,
      shares: number,
      threshold: number,
      set: string,
      made: string,
    ) =>
      `${revealControls(name)}: share ${f.number(index)} of ${f.number(shares)}; any ${f.number(threshold)} kits together recover the vault key. Share set ${set}, made ${f.dateTime(made)}.`,
    ownerTitle: 'Owner recovery kit',
    ownerDetail: (fingerprint: string) =>
      `The vault key itself (fingerprint ${fingerprint}): whoever holds these words can open the vault. Keep it where you keep your will.`,
  },
  ownerKit: {
    notHereTitle: 'The vault key is not on this device',
    notHere:
      "The owner kit can only be shown on a computer that holds the vault key. Open the vault's Overview and type the words of the owner kit you already have, or use the computer that made the vault.",
    viewFooter:
      'Print it or save it where you keep your will. Then choose “I have saved it” and type back a few of its words, so you know the copy you kept can be read.',
    saved: 'I have saved it',
    close: 'Close',
    checkTitle: 'Check the owner kit you saved',
    gateTitle: 'Show the vault key?',
    gateLead:
      'The owner kit is the vault key itself: whoever sees its words can open every file in this vault. Make sure nobody is looking at your screen.',
    gateSystem: (name: string) => `${name} confirms it is you before the words are shown.`,
    gateSystemButton: (name: string) => `Confirm with ${name}`,
    gateTypeLabel: (name: string) => `To show it, type the vault's name: ${name}`,
    gateTypedWhy:
      'This computer offers the app no fingerprint or system password check, so typing the name is the confirmation: it keeps the words from appearing by a slip of the mouse.',
    gateShow: 'Show the owner kit',
    shownAfterSystem: (name: string) =>
      `Shown after ${name} confirmed it was you. It hides again when you close it.`,
    shownAfterTyped: "Shown after you typed the vault's name. It hides again when you close it.",
    confirmed: (at: string, vault: string | null) =>
      `The words match: your owner kit is saved and readable (confirmed ${f.dateTime(at)}). Keep it somewhere safe and private; whoever holds it can open ${vault ?? 'the vault'}.`,
    done: 'Done',
    instructions:
      'Take the copy you kept — the printout or the saved file, not this screen — and type the words at these positions. This proves the copy can be read when it is needed.',
    word: (position: number, count: number) => `Word ${f.number(position)} of ${f.number(count)}`,
    choosing: 'Choosing the words to check…',
    notNow: 'Not now',
    showAgain: 'Show the kit again',
    checking: 'Checking…',
    confirm: 'Confirm',
  },
  uploadQueue: {
    title: 'Uploads',
    clearFailures: 'Clear failures',
    clearFinished: 'Clear finished',
    spent: (credits: number) => ` · ${f.count(credits, { one: 'credit', other: 'credits' })} spent`,
    list: 'Upload queue',
    files: 'Files',
    added: (at: string) => `added ${f.dateTime(at)} —`,
    progress: (name: string, percent: number) => `${revealControls(name)}: ${f.number(percent)}%`,
    bundleTitle: 'Small files are packed together and stored as one encrypted upload',
    inBundle: (others: number) =>
      `in a bundle with ${f.count(others, { one: 'other file', other: 'other files' })}`,
    left: (duration: string) => ` · ${duration} left`,
    credits: (n: number) => f.count(n, { one: 'credit', other: 'credits' }),
    estimated: (n: number) => `≈ ${f.count(n, { one: 'credit', other: 'credits' })}`,
    cancel: 'Cancel',
    retry: 'Retry',
  },
  release: {
    triggerLabel: {
      dead_man_switch: "Dead man's switch",
      manual: 'Manual',
      guardian_claim: 'Guardian claim',
    },
    triggerSentence: {
      dead_man_switch:
        'The release starts when you miss a check-in; checking in from the app or the tray resets the timer.',
      manual: 'Nothing starts by itself: the release begins only when you start it.',
      guardian_claim:
        'The release starts when enough of your guardians (as many as your kits require) claim it.',
    },
    frequencyShort: {
      weekly: 'Every 7 days',
      biweekly: 'Every 14 days',
      monthly: 'Every 30 days (monthly)',
      quarterly: 'Every 90 days (quarterly)',
    },
    frequency: {
      weekly: 'Weekly (every 7 days)',
      biweekly: 'Every two weeks (14 days)',
      monthly: 'Monthly (every 30 days) — recommended',
      quarterly: 'Quarterly (every 90 days)',
    },
    /** As the saved note names it: "Dead man's switch, monthly". */
    frequencyWord: { weekly: 'weekly', biweekly: 'biweekly', monthly: 'monthly', quarterly: 'quarterly' },
    title: 'When should your heirs receive the vault?',
    notSet:
      'No release trigger is set yet: nothing starts a release by itself. Choose one below and save it.',
    trigger: 'Release trigger',
    checkIn: 'Check in',
    checkInCost: (credits: number) =>
      `Each check-in costs ${f.count(credits, { one: 'credit', other: 'credits' })}. The app and the tray remind you before the deadline.`,
    changeMind: (days: number) => `${f.count(days, { one: 'day', other: 'days' })} to change your mind.`,
    contestation: (days: number) =>
      `Whatever the trigger, a release first enters a ${f.number(days)}-day contestation period. You are alerted during it and can cancel it at any time; only when it ends are your heirs notified and given access.`,
    saving: 'Saving…',
    save: 'Save release settings',
    saved: (trigger: string) => `Saved: ${trigger}.`,
    savedSwitch: (trigger: string, frequency: string, due: string) =>
      `Saved: ${trigger}, ${frequency}; next check-in due ${f.dateTime(due)}.`,
  },
  guardians: {
    status: {
      pending: 'Invited, no answer yet',
      accepted: 'Accepted',
      declined: 'Declined',
      notTold: 'Added, not told yet',
    },
    title: 'Guardians',
    count: (n: number, max: number) => `${f.number(n)} of ${f.number(max)}`,
    note: (threshold: number, shares: number) =>
      `Each guardian keeps a printed kit holding one share of the vault key. Any ${f.number(threshold)} of ${f.count(shares, { one: 'kit', other: 'kits' })} together recover your files; fewer reveal nothing.`,
    notListed: 'This service does not list guardians; shown are those added from this device.',
    none: 'No guardians yet.',
    name: 'Name',
    email: 'E-mail',
    statusColumn: 'Status',
    kit: 'Kit',
    actions: 'Actions',
    addedNoMail: (at: string) => `Added ${f.date(at)}; no e-mail was sent: tell them yourself`,
    invitedOn: (at: string) => `Invited ${f.date(at)}`,
    viewKit: (index: number) => `View kit ${f.number(index)}`,
    handedOverLabel: (index: number, name: string) => `Kit ${f.number(index)} handed over to ${name}`,
    handedOver: 'Handed over',
    noKit: 'none on this device',
    kitCheck: {
      confirmed: (at: string) => `Kit confirmed ${f.date(at)}`,
      notYet: 'Kit not confirmed yet',
      reminded: (at: string) => ` — reminded ${f.date(at)}`,
      overdue: (since: string | null) => `Kit not confirmed${since ? ` since ${f.date(since)}` : ''}`,
      askToCheck: (name: string) =>
        `Ask ${name} to check their kit (the check code on it, typed on their guardian page).`,
      noCode: 'No check code registered for this kit yet',
    },
    removeLabel: (name: string) => `Remove guardian ${name}`,
    remove: 'Remove',
    handedOverCount: (handed: number, withKit: number) =>
      `${f.number(handed)} of ${f.count(withKit, { one: 'current kit', other: 'current kits' })} marked as handed over. Tick a kit once the guardian holds it on paper; when kits are made again, tick the new ones.`,
    addTitle: 'Add a guardian',
    full: (shares: number) =>
      `This vault has the most guardians its preset allows (${f.number(shares)}). Remove one to add another.`,
    noMailTrial:
      'No e-mail leaves this computer (the vault service runs here, as a trial): the guardian is not told anything. Give them their printed kit and tell them in person what it is for.',
    noMail:
      'No e-mail leaves this computer (the service has no e-mail set up): the guardian is not told anything. Give them their printed kit and tell them in person what it is for.',
    invitation: 'They get an invitation e-mail.',
    addAllBeforePrinting:
      'Add all your guardians before printing kits: adding a guardian splits the key again and makes a new kit for every guardian, which does not combine with kits printed earlier.',
    who: 'guardian',
    add: 'Add guardian',
    removeTitle: (name: string) => `Remove ${name}?`,
    removeConfirm: 'Remove guardian',
    removeNote:
      'The vault key is split again for the remaining guardians: print the new kits and give one to each. This alone does not lock the removed guardian out: their kit, together with any other kit handed out so far, still opens the vault until those kits are destroyed. To make every old kit worthless, rotate the vault key afterwards (every file is re-encrypted, at a cost shown before it starts).',
  },
})

export type Catalogue = ReturnType<typeof english>
