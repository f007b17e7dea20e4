// The recovery page's words, in English and Spanish. The kit steps use the app's own sentences
// (renderer/text, recovery.*), so an heir meets the same hints and messages in the app and here; the
// format's explanations (a kit's misspelt word, a damaged file) come from vault-format in English, as
// the app shows them, under a sentence in the page's language.

export type PageLanguage = 'en' | 'es'

const count = (n: number, one: string, other: string) => `${n.toLocaleString()} ${n === 1 ? one : other}`

function megabytes(bytes: number, language: PageLanguage): string {
  const mb = bytes / 1e6
  return `${mb.toLocaleString(language, { maximumFractionDigits: mb < 10 ? 1 : 0 })} MB`
}

export const PAGE_TEXT = {
  en: {
    htmlLang: 'en',
    title: 'Vault recovery',
    lead: 'If someone named you as an heir, you can open their files with this page. It works in this browser, without the internet and without installing anything: the files and the kits stay on this device. Nothing here can harm the encrypted files: take your time.',
    language: 'Español',
    languageLabel: 'Ver esta página en español',
    sourceStep: '1. Where are the encrypted files?',
    sourceFiles: 'Files on this device',
    sourceFilesNote: 'Files whose names end in .vault, or the folder of an encrypted export.',
    sourceService: 'From the vault service (the e-mail’s address and access code)',
    sourceServiceNote: 'The files are downloaded from the vault service named in the e-mail.',
    sourceArweave: 'From Arweave',
    sourceArweaveNote: 'The files are found on a public Arweave gateway by the vault’s id.',
    chooseFiles: 'Choose .vault files…',
    chooseFolder: 'Choose a folder…',
    dropHere: 'or drop files or a folder here',
    filesChosen: (n: number, bytes: number) =>
      `${count(n, 'encrypted file', 'encrypted files')} chosen (${megabytes(bytes, 'en')}).`,
    noVaultFiles:
      'None of the chosen files ends in .vault. Choose the encrypted files (or the folder holding them, such as the encrypted export’s folder).',
    serviceAddress: 'Vault Service address',
    accessToken: 'Your personal access code (starts with hk_)',
    vaultId: 'Vault id (filled in for you when you enter a kit)',
    gateway: 'Arweave gateway',
    kitsStep: '2. Enter the guardians’ kits',
    kitsStepNote:
      'Each guardian was given a printed kit with a list of words and a square barcode. Type or paste the words (capital letters and extra spaces do not matter), read the barcode from a photo, or show it to the camera. The owner’s own recovery kit works alone. The kits stay on this device; nothing is sent anywhere.',
    kit: (n: number) => `Kit ${n}`,
    kitPlaceholder: 'The words from the kit, in order',
    readPhoto: 'Barcode from a photo…',
    readCamera: 'Barcode with the camera',
    stopCamera: 'Stop the camera',
    cameraNote: 'Hold the kit’s barcode in front of the camera.',
    cameraFailed: (why: string) =>
      `The camera could not be used (${why}). Allow the camera for this page, or take a photo of the barcode and choose it, or type the words.`,
    remove: 'Remove',
    addKit: 'Add another kit',
    kitRead: (index: number, of: number, vault: string, set: string) =>
      `Kit ${index} of ${of}, read correctly (vault ${vault}, set ${set}, as printed on the kit).`,
    ownerKitRead: (vaultId: string) =>
      `The owner’s recovery kit, read correctly (vault ${vaultId}). It opens the files on its own.`,
    practiceKit:
      'This is a practice kit: it opens only the practice file of a rehearsal, never the vault. Use the guardian’s real kit.',
    kitNotRead: 'This kit could not be read.',
    noKits: 'No kits entered yet.',
    kitsEnough: (n: number, threshold: number, total: number) =>
      `${count(n, 'kit', 'kits')} entered — enough to open the files (${threshold} of ${total} needed).`,
    kitsShort: (n: number, threshold: number, total: number) => {
      const more = threshold - n
      return `${count(n, 'kit', 'kits')} entered — ${threshold} of ${total} needed. Ask ${more === 1 ? 'one more guardian' : `${more} more guardians`} for their kit.`
    },
    mixedSetsEnough:
      'Some kits come from another set (the owner made new kits at some point). They will be left out: the kits of the set you have enough of are what open the files.',
    mixedSetsShort:
      'These kits come from different sets. The owner made new kits at some point (for example after changing guardians), and old and new kits do not fit together. Ask the guardians for their newest kit: the set is printed on each kit, and all kits used together must show the same set.',
    qrNotAnImage: (name: string) =>
      `“${name}” is not an image this page can read. Use a PNG or JPEG photo or scan of the kit’s QR code.`,
    qrNoCode: (name: string) =>
      `No QR code found in “${name}”. Take the photo straight on, with the whole code in view and in focus, or type the words instead.`,
    saveStep: '3. Save the recovered files',
    saveToFolder:
      'You will choose a folder; each file is written into it as it is decrypted and checked. Files already there are never replaced.',
    saveAsDownloads: (limit: number) =>
      `This browser cannot write into a folder, so each recovered file is kept in memory and offered as a download. Files larger than ${megabytes(limit, 'en')} cannot be recovered here: for those, open this page in Chrome or Edge on a computer, or use the Vault Desktop app.`,
    recover: 'Choose a folder and recover',
    recoverDownloads: 'Recover the files',
    cancel: 'Stop',
    missingSource: 'Say where the encrypted files are (step 1).',
    missingKits: 'Enter enough guardians’ kits first (step 2).',
    pickerCancelled: 'No folder was chosen, so nothing was recovered. Choose a folder to continue.',
    progress: 'Recovery progress',
    surveying: (n: number, total: number) => `Checking encrypted file ${n} of ${total}…`,
    writing: (name: string) => `Decrypting “${name}”…`,
    stopped:
      'The recovery was stopped. Files already written are complete and checked; a file being written when you stopped was removed. Start again with another folder, or the same one: files already there are left as they are.',
    reportTitle: 'Report',
    allRecovered: (n: number) =>
      n === 1 ? 'The file was recovered and checked.' : `All ${n} files recovered and checked.`,
    someRecovered: (done: number, total: number) => `${done} of ${count(total, 'file', 'files')} recovered.`,
    recoveredWithWarnings: (n: number) =>
      n === 1
        ? 'The file was written, but the report below has warnings: it may come from an older copy, or files may be missing unnoticed. Read them before you rely on it.'
        : `All ${n} files were written, but the report below has warnings: a file may come from an older copy, or files may be missing unnoticed. Read them before you rely on the files.`,
    nothingFound:
      'None of the encrypted files could be opened with these kits. Check that the kits and the files belong to the same vault.',
    counts: (c: ReportCounts) =>
      `Recovered: ${c.recovered}. Damaged: ${c.damaged}. Missing: ${c.missing}. Older copies left out: ${c.superseded}. Newer than the vault’s list: ${c.newer}.`,
    manifestUsed: 'The vault’s own list of its files was found and checked:',
    manifestMissing: 'Check this before you rely on the files:',
    kitsSetAside: 'The other kits were enough, so these were left out:',
    status: {
      recovered: 'recovered and checked',
      superseded: 'an older copy, left out',
      newer: 'newer than the vault’s list, left out',
      missing: 'missing',
      damaged: 'damaged',
      failed: 'not recovered',
      skipped: 'not written: a file of that name is already there',
    } as Record<string, string>,
    download: 'Download',
    speed: (mbps: number) => `Decrypted, checked and written at ${mbps.toFixed(0)} MB/s.`,
    tooLarge: (name: string, limit: number) =>
      `“${name}” is larger than ${megabytes(limit, 'en')}, which this browser cannot hold: it was not recovered. Open this page in Chrome or Edge on a computer, or use the Vault Desktop app.`,
    inTheWay: (name: string) =>
      `A file named “${name}” is already in the chosen folder and it was left as it is; this file was not written. Choose an empty folder to recover it.`,
    writeFailed: (name: string, why: string) =>
      `“${name}” could not be written into the chosen folder (${why}). Check that there is space and that the folder may be written to, then start again.`,
    readFailed: (label: string, why: string) =>
      `Could not read ${label} (${why}). Choose it again; if it was on a removable disk, check that the disk is connected.`,
    blobChanged: (label: string) =>
      `The encrypted file ${label} was not the same when it was read again to be decrypted as when it was checked, so nothing was written from it. Start the recovery again; if this happens again, the source is faulty or not to be trusted: recover from another copy of the vault’s encrypted files if there is one.`,
    bundleBroken: (label: string) =>
      `The encrypted file ${label}, which holds this file among others, is damaged at or before this file, so nothing was written for it. The files before that point in it were recovered. If there is another copy of the vault’s encrypted files, recover from it too.`,
    finishedIn: (folder: string) => `They are in the folder “${folder}” you chose.`,
    manifestFound: (sequence: number, writtenAt: string, listed: number) =>
      `Recovered by the vault’s newest list of files: number ${sequence}, written ${writtenAt}, naming ${count(listed, 'file', 'files')}.`,
    manifestRivals: (n: number) =>
      `Warning: ${count(n, 'other list carries', 'other lists carry')} the same number with different contents; set aside. The owner’s app never writes such lists: the files came from a faulty or hostile source.`,
    manifestNone:
      'No list of the vault’s files (manifest) was found, so each file’s newest copy was chosen by the write time sealed inside it; a file the owner deleted may come back, and a missing file cannot be noticed.',
    manifestLost:
      'These files were written by an app that also writes that list, so it was lost or withheld: files may be missing without notice. If there is another copy of the vault’s encrypted files, recover from it too.',
    notWritten: (n: number) => `Not recovered for other reasons: ${n}.`,
    fileOutcome: (path: string, status: string) => `${path}: ${status}`,
    noSourceFiles: 'The source holds no encrypted files of this vault.',
    otherVault: (kits: string, typed: string) =>
      `The kits belong to vault “${kits}”, not “${typed}”. Clear the vault id (the kits name the vault) or use the kits of vault “${typed}”.`,
    openNote:
      'They open like any other files. Keep the guardians’ kits until you are sure you have everything.',
  },
  es: {
    htmlLang: 'es',
    title: 'Recuperación de la bóveda',
    lead: 'Si alguien le nombró heredero, con esta página puede abrir sus archivos. Funciona en este navegador, sin internet y sin instalar nada: los archivos y los kits se quedan en este dispositivo. Nada de lo que haga aquí puede dañar los archivos cifrados: tómese su tiempo.',
    language: 'English',
    languageLabel: 'Show this page in English',
    sourceStep: '1. ¿Dónde están los archivos cifrados?',
    sourceFiles: 'Archivos en este dispositivo',
    sourceFilesNote: 'Archivos cuyo nombre termina en .vault, o la carpeta de una exportación cifrada.',
    sourceService: 'Del servicio de la bóveda (la dirección y el código de acceso del correo)',
    sourceServiceNote: 'Los archivos se descargan del servicio de la bóveda que nombra el correo.',
    sourceArweave: 'De Arweave',
    sourceArweaveNote: 'Los archivos se buscan en una pasarela pública de Arweave por el id de la bóveda.',
    chooseFiles: 'Elegir archivos .vault…',
    chooseFolder: 'Elegir una carpeta…',
    dropHere: 'o suelte aquí archivos o una carpeta',
    filesChosen: (n: number, bytes: number) =>
      `${count(n, 'archivo cifrado elegido', 'archivos cifrados elegidos')} (${megabytes(bytes, 'es')}).`,
    noVaultFiles:
      'Ninguno de los archivos elegidos termina en .vault. Elija los archivos cifrados (o la carpeta que los contiene, como la carpeta de la exportación cifrada).',
    serviceAddress: 'Dirección del servicio de la bóveda',
    accessToken: 'Su código de acceso personal (empieza por hk_)',
    vaultId: 'Id de la bóveda (se rellena solo al introducir un kit)',
    gateway: 'Pasarela de Arweave',
    kitsStep: '2. Introduzca los kits de los guardianes',
    kitsStepNote:
      'Cada guardián recibió un kit impreso con una lista de palabras y un código de barras cuadrado. Escriba o pegue las palabras (las mayúsculas y los espacios de más no importan), lea el código de una foto o muéstrelo a la cámara. El kit de recuperación del propio propietario basta por sí solo. Los kits se quedan en este dispositivo; no se envía nada a ninguna parte.',
    kit: (n: number) => `Kit ${n}`,
    kitPlaceholder: 'Las palabras del kit, en orden',
    readPhoto: 'Código desde una foto…',
    readCamera: 'Código con la cámara',
    stopCamera: 'Parar la cámara',
    cameraNote: 'Ponga el código del kit delante de la cámara.',
    cameraFailed: (why: string) =>
      `No se pudo usar la cámara (${why}). Permita la cámara para esta página, o haga una foto del código y elíjala, o escriba las palabras.`,
    remove: 'Quitar',
    addKit: 'Añadir otro kit',
    kitRead: (index: number, of: number, vault: string, set: string) =>
      `Kit ${index} de ${of}, leído correctamente (bóveda ${vault}, juego ${set}, tal como aparece impreso en el kit).`,
    ownerKitRead: (vaultId: string) =>
      `El kit de recuperación del propietario, leído correctamente (bóveda ${vaultId}). Abre los archivos por sí solo.`,
    practiceKit:
      'Es un kit de práctica: solo abre el archivo de práctica de un ensayo, nunca la bóveda. Use el kit real del guardián.',
    kitNotRead: 'No se pudo leer este kit.',
    noKits: 'Todavía no se ha introducido ningún kit.',
    kitsEnough: (n: number, threshold: number, total: number) =>
      `${count(n, 'kit introducido', 'kits introducidos')}: suficientes para abrir los archivos (se necesitan ${threshold} de ${total}).`,
    kitsShort: (n: number, threshold: number, total: number) => {
      const more = threshold - n
      return `${count(n, 'kit introducido', 'kits introducidos')}: se necesitan ${threshold} de ${total}. Pida su kit a ${more === 1 ? 'un guardián más' : `${more} guardianes más`}.`
    },
    mixedSetsEnough:
      'Algunos kits son de otro juego (en algún momento el propietario hizo kits nuevos). Se dejarán fuera: abren los archivos los kits del juego del que tiene suficientes.',
    mixedSetsShort:
      'Estos kits son de juegos distintos. En algún momento el propietario hizo kits nuevos (por ejemplo, al cambiar de guardianes), y los kits viejos y los nuevos no encajan entre sí. Pida a los guardianes su kit más reciente: el juego está impreso en cada kit, y todos los kits que se usen juntos deben mostrar el mismo juego.',
    qrNotAnImage: (name: string) =>
      `«${name}» no es una imagen que esta página pueda leer. Use una foto o un escaneo en PNG o JPEG del código QR del kit.`,
    qrNoCode: (name: string) =>
      `No se encontró ningún código QR en «${name}». Haga la foto de frente, con todo el código a la vista y enfocado, o escriba las palabras.`,
    saveStep: '3. Guarde los archivos recuperados',
    saveToFolder:
      'Elegirá una carpeta; cada archivo se escribe en ella a medida que se descifra y se comprueba. Los archivos que ya estén allí nunca se sustituyen.',
    saveAsDownloads: (limit: number) =>
      `Este navegador no puede escribir en una carpeta, así que cada archivo recuperado se guarda en memoria y se ofrece como descarga. Los archivos de más de ${megabytes(limit, 'es')} no se pueden recuperar aquí: para ellos, abra esta página en Chrome o Edge en un ordenador, o use la aplicación Vault Desktop.`,
    recover: 'Elegir una carpeta y recuperar',
    recoverDownloads: 'Recuperar los archivos',
    cancel: 'Parar',
    missingSource: 'Indique dónde están los archivos cifrados (paso 1).',
    missingKits: 'Introduzca primero suficientes kits de guardianes (paso 2).',
    pickerCancelled:
      'No se eligió ninguna carpeta, así que no se recuperó nada. Elija una carpeta para seguir.',
    progress: 'Progreso de la recuperación',
    surveying: (n: number, total: number) => `Comprobando el archivo cifrado ${n} de ${total}…`,
    writing: (name: string) => `Descifrando «${name}»…`,
    stopped:
      'La recuperación se paró. Los archivos ya escritos están completos y comprobados; el que se estaba escribiendo al parar se eliminó. Empiece de nuevo con otra carpeta o con la misma: los archivos que ya estén allí se dejan como están.',
    reportTitle: 'Informe',
    allRecovered: (n: number) =>
      n === 1
        ? 'El archivo se recuperó y se comprobó.'
        : `Los ${n} archivos se recuperaron y se comprobaron.`,
    someRecovered: (done: number, total: number) =>
      `${done} de ${count(total, 'archivo', 'archivos')} recuperados.`,
    recoveredWithWarnings: (n: number) =>
      n === 1
        ? 'Se escribió el archivo, pero el informe de abajo tiene avisos: puede venir de una copia anterior, o pueden faltar archivos sin que se note. Léalos antes de fiarse de él.'
        : `Se escribieron los ${n} archivos, pero el informe de abajo tiene avisos: algún archivo puede venir de una copia anterior, o pueden faltar archivos sin que se note. Léalos antes de fiarse de los archivos.`,
    nothingFound:
      'Ninguno de los archivos cifrados se pudo abrir con estos kits. Compruebe que los kits y los archivos son de la misma bóveda.',
    counts: (c: ReportCounts) =>
      `Recuperados: ${c.recovered}. Dañados: ${c.damaged}. Faltan: ${c.missing}. Copias anteriores dejadas fuera: ${c.superseded}. Más recientes que la lista de la bóveda: ${c.newer}.`,
    manifestUsed: 'Se encontró y se comprobó la propia lista de archivos de la bóveda:',
    manifestMissing: 'Compruebe esto antes de fiarse de los archivos:',
    kitsSetAside: 'Los otros kits bastaron, así que estos se dejaron fuera:',
    status: {
      recovered: 'recuperado y comprobado',
      superseded: 'una copia anterior, se deja fuera',
      newer: 'más reciente que la lista de la bóveda, se deja fuera',
      missing: 'falta',
      damaged: 'dañado',
      failed: 'no recuperado',
      skipped: 'no se escribió: ya hay un archivo con ese nombre',
    } as Record<string, string>,
    download: 'Descargar',
    speed: (mbps: number) => `Descifrado, comprobado y escrito a ${mbps.toFixed(0)} MB/s.`,
    tooLarge: (name: string, limit: number) =>
      `«${name}» ocupa más de ${megabytes(limit, 'es')}, que este navegador no puede guardar: no se recuperó. Abra esta página en Chrome o Edge en un ordenador, o use la aplicación Vault Desktop.`,
    inTheWay: (name: string) =>
      `Ya hay un archivo llamado «${name}» en la carpeta elegida y se dejó como estaba; este archivo no se escribió. Elija una carpeta vacía para recuperarlo.`,
    writeFailed: (name: string, why: string) =>
      `«${name}» no se pudo escribir en la carpeta elegida (${why}). Compruebe que hay espacio y que se puede escribir en la carpeta, y empiece de nuevo.`,
    readFailed: (label: string, why: string) =>
      `No se pudo leer ${label} (${why}). Elíjalo de nuevo; si estaba en un disco extraíble, compruebe que está conectado.`,
    blobChanged: (label: string) =>
      `El archivo cifrado ${label} no era el mismo al leerlo de nuevo para descifrarlo que cuando se comprobó, así que no se escribió nada a partir de él. Empiece de nuevo la recuperación; si vuelve a pasar, la fuente es defectuosa o no es de fiar: recupere desde otra copia de los archivos cifrados de la bóveda, si la hay.`,
    bundleBroken: (label: string) =>
      `El archivo cifrado ${label}, que contiene este archivo junto con otros, está dañado en este archivo o antes, así que no se escribió nada para él. Los archivos anteriores a ese punto sí se recuperaron. Si hay otra copia de los archivos cifrados de la bóveda, recupere también desde ella.`,
    finishedIn: (folder: string) => `Están en la carpeta «${folder}» que eligió.`,
    manifestFound: (sequence: number, writtenAt: string, listed: number) =>
      `Recuperado según la lista de archivos más reciente de la bóveda: número ${sequence}, escrita el ${writtenAt}, con ${count(listed, 'archivo', 'archivos')}.`,
    manifestRivals: (n: number) =>
      `Atención: ${count(n, 'otra lista lleva', 'otras listas llevan')} el mismo número con otro contenido; se dejaron aparte. La aplicación del propietario nunca escribe listas así: los archivos vienen de una fuente defectuosa u hostil.`,
    manifestNone:
      'No se encontró ninguna lista de los archivos de la bóveda (manifiesto), así que de cada archivo se eligió la copia más reciente por la fecha sellada dentro; un archivo que el propietario borró puede volver, y no se puede notar si falta alguno.',
    manifestLost:
      'Estos archivos los escribió una aplicación que también escribe esa lista, así que se perdió o se retuvo: pueden faltar archivos sin aviso. Si hay otra copia de los archivos cifrados de la bóveda, recupere también desde ella.',
    notWritten: (n: number) => `No recuperados por otros motivos: ${n}.`,
    fileOutcome: (path: string, status: string) => `${path}: ${status}`,
    noSourceFiles: 'La fuente no contiene archivos cifrados de esta bóveda.',
    otherVault: (kits: string, typed: string) =>
      `Los kits son de la bóveda «${kits}», no de «${typed}». Borre el id de la bóveda (los kits ya nombran la bóveda) o use los kits de la bóveda «${typed}».`,
    openNote:
      'Se abren como cualquier otro archivo. Guarde los kits de los guardianes hasta estar seguro de que lo tiene todo.',
  },
} satisfies Record<PageLanguage, unknown>

export type PageText = (typeof PAGE_TEXT)['en']

export interface ReportCounts {
  recovered: number
  damaged: number
  missing: number
  superseded: number
  newer: number
}

/** The page's language: the browser's first preference it has words for, else English. */
export function pageLanguage(preferred: readonly string[]): PageLanguage {
  for (const tag of preferred) {
    const base = tag.toLowerCase().split('-')[0]
    if (base === 'es' || base === 'en') return base
  }
  return 'en'
}

// Both languages say everything: a sentence missing in Spanish fails the typecheck.
export const PAGE_TEXTS: Record<PageLanguage, PageText> = PAGE_TEXT
