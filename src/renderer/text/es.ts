// Spanish, for the people most likely not to read English: heirs on the Recovery screen (all of
// its section, checked by test/ui/catalogue.test.ts), and the messages it shows from shared parts.
// Sections not listed here stay in English.
import type { LocaleFormat } from '../../shared/locale-format'
import type { Translation } from '../../shared/text-catalogue'
import { isolateName, revealControls } from '../../shared/untrusted-text'
import type { Catalogue } from './en'

export const spanish = (f: LocaleFormat): Translation<Catalogue> => ({
  // All three, so that the sidebar reads in one language and "Ajustes" in a message finds its screen.
  screens: {
    vaults: 'Bóvedas',
    recovery: 'Recuperación',
    settings: 'Ajustes',
  },
  common: {
    files: (n: number) => f.count(n, { one: 'archivo', other: 'archivos' }),
  },
  // Only the pointer an heir follows from the first screen to Recovery.
  firstRun: {
    heirPointer: '¿Alguien le ha dejado sus archivos? No necesita configurar nada aquí.',
    goToRecovery: 'Ir a Recuperación',
    heirPointerEnd: 'y siga los pasos con el correo electrónico que recibió y los kits de los guardianes.',
  },
  errors: {
    creditsNeeded: (n: number) => `Se necesitan: ${f.credits(n, { one: 'crédito', other: 'créditos' })}.`,
    creditsBalance: (n: number) => `Saldo: ${f.credits(n, { one: 'crédito', other: 'créditos' })}.`,
    tryAgainIn: (seconds: number) => `Podrá volver a intentarlo dentro de ${f.duration(seconds)}.`,
    tryAgainNow: 'Ya puede volver a intentarlo.',
    retryIn: (seconds: number) => `Reintentar dentro de ${f.duration(seconds)}`,
    retry: 'Reintentar',
    reconnect: 'Volver a conectar en Ajustes',
    saveOwnerKit: 'Guardar el kit del propietario…',
    connections: 'Conexiones en Ajustes',
    technicalDetails: 'Detalles técnicos',
    screenFailed: 'Esta pantalla ha tenido un problema',
    screenFailedDetail: 'No se ha cambiado nada de su bóveda. La aplicación informó:',
    screenFailedAdvice: 'Vuelva a intentarlo; si ocurre siempre, reinicie Vault Desktop.',
  },
  qrImage: {
    notAnImage: (name: string) =>
      `${isolateName(name)} no es una imagen que esta aplicación pueda leer. Use una foto o un escaneo en PNG o JPEG del código QR del kit.`,
    noCanvas: 'Esta ventana no puede leer imágenes (no hay canvas). Escriba las palabras del kit.',
    noCode: (name: string) =>
      `No se encontró ningún código QR en ${isolateName(name)}. Haga la foto de frente, con todo el código a la vista y enfocado, o escriba las palabras.`,
  },
  recovery: {
    title: 'Recuperación',
    lead: 'Si alguien le nombró heredero o heredera, aquí puede abrir sus archivos. Necesita el correo electrónico que recibió y los kits de suficientes guardianes. Nada de esto es urgente y nada de lo que haga aquí puede dañar los archivos: tómese su tiempo y, si le ayuda, pida a alguien que le acompañe.',
    sourceLegend: '¿Dónde están los archivos?',
    sourceService: 'Recibí un correo electrónico con un código de acceso',
    sourceServiceNote: 'Los archivos se descargan del servicio de bóvedas que indica el correo.',
    sourceFiles: 'Tengo los archivos cifrados en este ordenador',
    sourceFilesNote: 'Archivos cuyo nombre termina en .vault, de una copia de seguridad o una descarga.',
    emailStep: '1. Copie tres datos del correo electrónico',
    emailStepNote:
      'El asunto del correo empieza por «You have been given access» (en un ensayo, por «[PRACTICE] A practice run»). Copie cada dato tal cual; los espacios al principio o al final no importan.',
    serviceAddress: 'Dirección del servicio de bóvedas (Vault Service)',
    serviceAddressPlaceholder: 'https://…',
    accessToken: 'Su código de acceso personal (empieza por hk_)',
    accessTokenPlaceholder: 'hk_…',
    vaultId: 'Identificador de la bóveda (se rellena solo al introducir el kit de un guardián)',
    looking: 'Buscando…',
    showFiles: 'Ver los archivos',
    showFilesNote: 'Opcional: vea lo que contiene la bóveda antes de empezar.',
    showFilesNeedsVaultId:
      'Hace falta también el identificador de la bóveda: está en el correo, o se rellena solo al introducir el kit de un guardián en el paso 2.',
    showAllResults: (n: number) => `Mostrar el resultado de cada uno de los ${f.number(n)} archivos`,
    vaultHolds: (files: number, size: string) =>
      `La bóveda contiene ${f.count(files, { one: 'archivo', other: 'archivos' })} (${size} en total)`,
    packedFiles: (files: number) =>
      `${f.count(files, { one: 'archivo', other: 'archivos' })} empaquetados juntos`,
    lockedNote: 'Están bloqueados hasta que se introduzcan abajo los kits de suficientes guardianes.',
    filesStep: '1. Elija los archivos cifrados',
    inputs: 'Archivos o carpetas cifrados (una ruta completa por línea)',
    chooseFiles: 'Elegir archivos…',
    kitsStep: '2. Introduzca los kits de los guardianes',
    kitsStepNote:
      'Cada guardián recibió un kit impreso con una lista de palabras y un código de barras cuadrado. Escriba o pegue las palabras (las mayúsculas y los espacios de más no importan), o elija una foto del código. Los kits se quedan en este ordenador; no se envía nada a ninguna parte.',
    noKits: 'Todavía no se ha introducido ningún kit.',
    kitsEntered: (n: number) =>
      `${f.count(n, { one: 'kit', other: 'kits' })} ${f.plural(n, { one: 'introducido', other: 'introducidos' })}.`,
    kitsEnough: (n: number, threshold: number, total: number) =>
      `${f.count(n, { one: 'kit', other: 'kits' })} ${f.plural(n, { one: 'introducido', other: 'introducidos' })}: suficientes para abrir los archivos (se necesitan ${f.number(threshold)} de ${f.number(total)}).`,
    kitsShort: (n: number, threshold: number, total: number) => {
      const more = threshold - n
      return `${f.count(n, { one: 'kit', other: 'kits' })} ${f.plural(n, { one: 'introducido', other: 'introducidos' })}: se necesitan ${f.number(threshold)} de ${f.number(total)}. Pida su kit a ${more === 1 ? 'un guardián más' : `${f.number(more)} guardianes más`}.`
    },
    mixedVaults: (fingerprints: string) =>
      `Estos kits pertenecen a bóvedas distintas (huellas ${fingerprints}): cada bóveda tiene sus propios guardianes y sus propios kits, y nunca encajan entre sí. Quédese solo con los kits cuya huella coincide con la bóveda que está recuperando.`,
    mixedSetsEnough:
      'Algunos kits son de otro juego (en algún momento el propietario hizo kits nuevos). Se dejarán fuera: abren los archivos los kits del juego del que tiene suficientes.',
    mixedSetsShort:
      'Estos kits son de juegos distintos. En algún momento el propietario hizo kits nuevos (por ejemplo, al cambiar de guardianes), y los kits viejos y los nuevos no encajan entre sí. Pida a los guardianes su kit más reciente: el juego está impreso en cada kit, y todos los kits que se usen juntos deben mostrar el mismo juego.',
    kit: (n: number) => `Kit ${f.number(n)}`,
    kitPlaceholder: 'Las palabras del kit, en orden',
    readPhoto: 'Leer el código de una foto…',
    remove: 'Quitar',
    kitRead: (index: number, of: number, vault: string, set: string) =>
      `Kit ${f.number(index)} de ${f.number(of)}, leído correctamente (bóveda ${isolateName(vault)}, juego ${isolateName(set)}, tal como aparece impreso en el kit).`,
    kitNotRead: 'No se pudo leer este kit.',
    addKit: 'Añadir otro kit',
    saveStep: '3. Elija dónde guardar los archivos',
    output: 'Carpeta para los archivos recuperados',
    outputPlaceholder: 'Por ejemplo /home/usted/Documentos/Archivos recuperados',
    chooseFolder: 'Elegir…',
    outputNote:
      'Si hace falta, se crea una carpeta nueva. Los archivos que ya estén allí nunca se sustituyen. Mientras dura la recuperación, el disco necesita espacio libre de aproximadamente el doble del tamaño de la bóveda. Si la recuperación se interrumpe, vuelva a empezarla con la misma carpeta: seguirá donde se quedó.',
    recovering: 'Recuperando…',
    continue: 'Seguir donde se quedó',
    recoverFromService: 'Recuperar los archivos',
    recoverFiles: 'Comprobar y descifrar',
    missingService: 'Rellene la dirección del servicio y el código de acceso del correo (paso 1).',
    missingFiles: 'Indique dónde están los archivos cifrados (paso 1).',
    missingKits: 'Primero introduzca los kits de suficientes guardianes (paso 2).',
    missingKitsOneVault: 'Use solo los kits de una bóveda (paso 2).',
    missingOutput: 'Indique dónde guardar los archivos (paso 3).',
    progress: 'Progreso de la recuperación',
    progressFile: (n: number, total: number) => `Archivo cifrado ${f.number(n)} de ${f.number(total)}`,
    practicePassed: 'Ensayo superado: los kits de ensayo abrieron el archivo de ensayo.',
    manifestUsed: 'Se encontró y comprobó la lista de archivos de la bóveda:',
    manifestMissing: 'Compruebe esto antes de fiarse de los archivos:',
    practiceNotConfirmed: 'El servicio no ha confirmado el ensayo.',
    practiceNote: 'Esto ha sido un ensayo: no se ha entregado nada y no se usaron los kits reales.',
    practiceMode:
      'Estos son kits de ensayo: esto es un ensayo. Solo se recupera el archivo de ensayo; la bóveda sigue cerrada. No introduzca el kit real de ningún guardián.',
    kitReadPractice: (index: number, of: number, until: string) =>
      `Kit de ensayo ${f.number(index)} de ${f.number(of)}, leído correctamente (válido hasta el ${f.date(until)}).`,
    recoverPractice: 'Recuperar el archivo de ensayo',
    practiceFiles: 'Este código de acceso de ensayo abre un archivo de ensayo:',
    kitsSetAside: (n: number) =>
      n === 1
        ? 'Los demás kits bastaban, así que se dejó fuera un kit:'
        : 'Los demás kits bastaban, así que se dejaron fuera algunos kits:',
    stopped: 'La recuperación se detuvo antes de terminar.',
    allRecovered: (n: number) =>
      n === 1
        ? 'El archivo se ha recuperado y comprobado.'
        : `Los ${f.count(n, { one: 'archivo', other: 'archivos' })} se han recuperado y comprobado.`,
    someRecovered: (done: number, total: number) =>
      `${f.plural(done, { one: 'Se ha', other: 'Se han' })} recuperado ${f.number(done)} de ${f.count(total, { one: 'archivo', other: 'archivos' })}.`,
    someRecoveredSoFar: (done: number, total: number) =>
      `Por ahora ${f.plural(done, { one: 'se ha', other: 'se han' })} recuperado ${f.number(done)} de ${f.count(total, { one: 'archivo', other: 'archivos' })}.`,
    savedIn: (n: number, folder: string) => `${n === 1 ? 'Está' : 'Están'} en ${revealControls(folder)}.`,
    finishedAt: (at: number) => `Terminada el ${f.dateTime(at)}.`,
    openNote:
      'Se abren como cualquier otro archivo. Guarde los kits de los guardianes hasta estar seguro de que lo tiene todo.',
    fileStatus: {
      recovered: 'recuperado y comprobado',
      kept: 'ya se recuperó antes; se deja como está',
      superseded: 'una copia anterior, se deja fuera',
      failed: 'no recuperado',
      'not-reached': 'todavía no recuperado',
    },
    kitCheck: {
      title: 'Para un guardián: compruebe que aún tiene su kit',
      lead: 'Su kit lleva un código de comprobación corto, impreso aparte de las palabras. Escriba aquí las palabras de su kit: este ordenador calcula el código y lo muestra, y debe coincidir con el de su papel. Las palabras no salen de este ordenador.',
      words: 'Las palabras de su kit (un solo kit de guardián)',
      link: 'El enlace «comprobar mi kit» de su correo de guardián (opcional)',
      linkNote:
        'Con el enlace, el código (nunca las palabras) se envía al servicio del propietario para confirmar que aún tiene el kit.',
      linkPlaceholder: 'https://… (el enlace entero del correo)',
      show: 'Mostrar el código de comprobación',
      confirm: 'Mostrar y confirmar',
      working: 'Comprobando…',
      code: 'Código de comprobación',
      kitOf: (index: number, shares: number, fingerprint: string) =>
        `Kit ${f.number(index)} de ${f.number(shares)}, huella de la bóveda ${fingerprint}. El código debe coincidir con el impreso en el kit.`,
      confirmed: (at: string) =>
        `Confirmado el ${f.date(at)}: el servicio del propietario ya sabe que aún tiene este kit. Guárdelo donde estaba.`,
      olderSplit: (at: string) =>
        `Este kit es de un juego anterior: el propietario hizo kits nuevos el ${f.date(at)} y este ya no encaja con ellos. Pida al propietario su kit nuevo.`,
      otherGuardian:
        'Este es el kit de otro guardián de esta bóveda, no el que se hizo para usted. Compruebe que escribió su propio kit y usó el enlace de su propio correo.',
      typo: 'El servicio no leyó esto como un código de comprobación. Inténtelo de nuevo.',
      unknown:
        'El servicio del propietario no conoce ningún kit con este código: puede que el kit sea de otra bóveda, o el enlace de la bóveda de otro propietario.',
      notRegistered:
        'El propietario aún no ha registrado los códigos de comprobación de su kit. Pídale que abra la pestaña Guardianes de su aplicación y vuelva a comprobarlo.',
    },
  },
  // What a guardian change means for the kits, and rotating the vault key so that old kits open nothing.
  guardianKits: {
    invited: (name: string) => `${name} recibió la invitación.`,
    addedNoMail: (name: string) => `${name} se añadió; no se envió ningún correo, así que avísele usted.`,
    removed: 'El guardián se eliminó.',
    kitsMade: (n: number) =>
      `La clave se dividió en ${f.count(n, { one: 'kit', other: 'kits' })}, uno por guardián.`,
    kitsRemade: (n: number) =>
      `La clave se dividió de nuevo: ${f.count(n, { one: 'kit nuevo', other: 'kits nuevos' })}.`,
    earlierNotHandedOver:
      'Ninguno de los kits anteriores a este cambio se había entregado: imprima solo los nuevos y destruya las copias viejas. Un kit nuevo no se combina con uno viejo, pero dos kits viejos juntos siguen abriendo la bóveda.',
    earlierHandedOver: (n: number) =>
      n === 1
        ? 'Se entregó un kit de la división anterior. Sigue abriendo la bóveda junto con cualquier otro kit de esa división hasta que se destruyan: dé a cada guardián su kit nuevo y pida que le devuelvan o destruyan el viejo.'
        : `Se entregaron ${f.number(n)} kits de la división anterior. Dos cualesquiera de ellos siguen abriendo la bóveda hasta que se destruyan: dé a cada guardián su kit nuevo y pida que le devuelvan o destruyan los viejos.`,
    removedStillOpens:
      'El kit del guardián eliminado sigue abriendo la bóveda junto con cualquier otro kit viejo hasta que se destruyan: dividir otra vez la misma clave no puede cambiarlo. Para que ningún kit viejo sirva, rote la clave de la bóveda.',
    addAllFirst: (added: number, total: number) =>
      `${f.number(added)} de ${f.number(total)} guardianes añadidos. Añada los ${f.number(total)} antes de imprimir o entregar kits: cada guardián que añade divide la clave otra vez, y un kit de una división no se combina con uno de otra.`,
    kitChangesLater: (total: number) =>
      `Aún no están los ${f.number(total)} guardianes: este kit se sustituye cuando añada el siguiente (los kits de divisiones distintas no se combinan). Añádalos todos y luego imprima los kits.`,
  },
  keyRotation: {
    title: 'Rotar la clave de la bóveda',
    why: 'Una clave nueva deja sin valor todos los kits entregados hasta ahora: cada archivo se cifra de nuevo con la clave nueva, las copias viejas se borran y cada guardián recibe un kit nuevo. Hágalo después de eliminar a un guardián o si un kit pudo llegar a malas manos.',
    afterRemoval: 'Rote ahora la clave de la bóveda para que el kit del guardián eliminado no abra nada.',
    check: 'Ver lo que cuesta',
    checking: 'Leyendo la bóveda…',
    cost: (files: number, bytes: number, credits: number) =>
      `Cifrar de nuevo ${f.count(files, { one: 'archivo guardado', other: 'archivos guardados' })} (${f.bytes(bytes)}) cuesta ${f.credits(credits, { one: 'crédito', other: 'créditos' })}: cada uno se sube otra vez.`,
    balance: (credits: number) => `Saldo: ${f.credits(credits, { one: 'crédito', other: 'créditos' })}.`,
    short: (credits: number) =>
      `Faltan ${f.count(credits, { one: 'crédito', other: 'créditos' })} en el saldo. Añada créditos primero; no se inicia ni se cobra nada.`,
    empty: 'La bóveda no tiene archivos: la rotación solo crea una clave y kits nuevos, sin coste.',
    deletes:
      'Cuando todos los archivos estén cifrados de nuevo y comprobados, y usted haya guardado y confirmado el kit nuevo del propietario, las copias viejas se borran del servicio.',
    permanent:
      'Este servicio guarda los archivos en Arweave, un almacén permanente: nada de lo guardado allí se puede borrar. Tras la rotación, las copias viejas siguen legibles para siempre para quien tenga dos kits viejos o el kit viejo del propietario; la rotación protege las copias que el servicio entrega desde ahora.',
    noDelete:
      'Este servicio no puede borrar archivos: las copias viejas se quedan en él, legibles con los kits viejos, hasta que su operador las quite.',
    unknownStorage:
      'Este servicio no dice dónde guarda los archivos ni si borrar los elimina: las copias viejas pueden seguir legibles con los kits viejos.',
    safe: 'Hasta que todos los archivos estén cifrados de nuevo, la clave vieja sigue siendo la de la bóveda, así que detenerse a mitad no pierde nada; la rotación sigue donde se quedó, también tras reiniciar.',
    after:
      'Después usted debe guardar el kit nuevo del propietario: las copias viejas se borran solo cuando lo confirme y, hasta entonces, los kits viejos todavía las abren. Cada guardián necesita su kit nuevo.',
    start: (credits: number) =>
      `Rotar la clave por ${f.credits(credits, { one: 'crédito', other: 'créditos' })}`,
    starting: 'Iniciando…',
    phase: {
      none: '',
      're-encrypting': 'Cifrando de nuevo los archivos con la clave nueva',
      switched: 'La clave nueva está en uso; comprobando las copias nuevas',
      'awaiting-owner-kit': 'Esperando a que guarde el kit nuevo del propietario',
      done: 'La clave de la bóveda se rotó',
    },
    progress: (done: number, total: number, bytesDone: number, bytesTotal: number) =>
      `${f.number(done)} de ${f.count(total, { one: 'archivo', other: 'archivos' })}, ${f.bytes(bytesDone)} de ${f.bytes(bytesTotal)}`,
    rate: (bytesPerSecond: number) => `${f.bytes(bytesPerSecond)}/s`,
    charged: (credits: number, of: number) =>
      `Gastados ${f.credits(credits, { one: 'crédito', other: 'créditos' })} de ${f.credits(of, { one: 'crédito', other: 'créditos' })}.`,
    paused:
      'En pausa. La clave vieja sigue siendo la de la bóveda y todos los archivos se abren como antes; reanude para seguir donde se quedó.',
    pause: 'Pausar',
    resume: 'Reanudar',
    abandon: 'Abandonar la rotación',
    abandonNote:
      'Abandonar borra las copias ya hechas con la clave nueva; la bóveda sigue con su clave vieja. Los créditos ya gastados no se devuelven.',
    done: (files: number, credits: number) =>
      `${f.count(files, { one: 'archivo cifrado', other: 'archivos cifrados' })} de nuevo con la clave nueva por ${f.credits(credits, { one: 'crédito', other: 'créditos' })}. Ningún kit viejo abre nada de lo que guarda este servicio.`,
    doneKept: (files: number, credits: number) =>
      `${f.count(files, { one: 'archivo cifrado', other: 'archivos cifrados' })} de nuevo con la clave nueva por ${f.credits(credits, { one: 'crédito', other: 'créditos' })}. Las copias que entrega el servicio solo se abren con los kits nuevos.`,
    oldCopiesKept: (n: number) =>
      `${f.count(n, { one: 'copia vieja queda', other: 'copias viejas quedan' })} en el almacén permanente del servicio, legibles con los kits viejos para siempre.`,
    unreadable: (n: number) =>
      `${f.count(n, { one: 'archivo guardado no se abre', other: 'archivos guardados no se abren' })} con la clave de la bóveda (dañados o de otra bóveda) y se dejaron como estaban.`,
    kitsMade: (n: number) =>
      n === 0
        ? 'La bóveda no tiene guardianes, así que no se hizo ningún kit de guardián.'
        : `Se hicieron ${f.count(n, { one: 'kit de guardián nuevo', other: 'kits de guardián nuevos' })} (pestaña Guardianes): dé a cada guardián el suyo y pida que le devuelvan o destruyan el viejo.`,
    saveOwnerKit:
      'Guarde ahora el kit nuevo del propietario (Resumen, Clave de la bóveda y kit del propietario): el viejo ya no abre nada.',
    rotateAgain: 'Rotar de nuevo',
    awaitingTitle: 'Guarde el kit nuevo del propietario: las copias viejas se conservan hasta entonces',
    awaiting: (files: number, oldCopies: number) =>
      `${f.count(files, { one: 'archivo está cifrado', other: 'archivos están cifrados' })} de nuevo con la clave nueva y comprobados. Ahora mismo solo este ordenador tiene la clave nueva, así que ${f.count(oldCopies, { one: 'copia vieja se queda', other: 'copias viejas se quedan' })} en el servicio: si este ordenador se perdiera antes de que guarde el kit nuevo del propietario, las copias viejas y los kits viejos son lo que usted y sus herederos podrían recuperar.`,
    awaitingRisk:
      'Mientras no se borren las copias viejas, los kits viejos todavía las abren: el kit viejo del guardián eliminado, junto con otros kits viejos (tantos como pide la bóveda, menos uno) o el kit viejo del propietario, podría leer los archivos tal como estaban antes de la rotación. Los archivos añadidos después solo están con la clave nueva.',
    awaitingNext:
      'Guarde el kit nuevo del propietario y confírmelo; las copias viejas se borran justo después.',
    saveNewOwnerKit: 'Guardar el kit nuevo del propietario',
  },
  // What a vault says when the key it was made with is gone from this computer.
  vaultKey: {
    lost: 'La clave de esta bóveda ya no está en este ordenador: importe el kit del propietario.',
    lostFrom: {
      memory:
        'Solo se guardaba mientras la aplicación estaba abierta, porque este ordenador no ofrece llavero, así que desapareció al cerrarla.',
      keychain:
        'Se guardaba en el llavero de este ordenador, que ya no la devuelve (bloqueado, inaccesible o con la entrada borrada). Si el llavero vuelve, reinicie la aplicación.',
      'encrypted-file':
        'Se guardaba en un archivo cifrado con el almacenamiento protegido de este ordenador, que ya no puede abrirlo.',
    },
    lostFingerprint: (fingerprint: string) =>
      `El kit del propietario de esta clave muestra la huella ${fingerprint}. La aplicación no crea otra clave en su lugar: los archivos y los kits de los guardianes de la bóveda solo se abren con esta.`,
  },
  // Where a file's name comes from, and the per-vault choice of telling the service real names.
  fileLibrary: {
    title: 'Archivos',
    search: 'Buscar un archivo por nombre',
    searchPlaceholder: 'El nombre contiene…',
    category: 'Categoría',
    all: 'Todas',
    folders: 'Carpetas',
    top: 'Todos los archivos',
    list: 'Archivos de esta bóveda',
    name: 'Nombre',
    size: 'Tamaño',
    added: 'Añadido',
    blob: 'Guardado en',
    folderLabel: (name: string) => `Abrir la carpeta ${revealControls(name)}`,
    folderSummary: (files: number, size: string) =>
      `${f.count(files, { one: 'archivo', other: 'archivos' })} · ${size}`,
    bundle: '· paquete',
    nameHidden: ' · nombre oculto',
    hiddenName: (name: string) => `El servicio solo conoce este blob como ${isolateName(name)}`,
    blobTitle: (id: string) => `Identificador de almacenamiento del blob cifrado: ${id}`,
    noBlob: 'un blob de otro ordenador',
    noBlobTitle:
      'El manifiesto de la bóveda de otro ordenador incluye este archivo; el blob que lo contiene oculta su nombre al servicio, así que cuál es se sabe al leer los blobs.',
    fromManifest: 'Incluido en el manifiesto de la bóveda de otro ordenador',
    loading: 'Leyendo la lista de archivos…',
    none: 'Aún no hay archivos. Haz copia de archivos o carpetas con el panel de arriba.',
    noMatch: 'Ningún archivo de aquí coincide. Borra la búsqueda o elige otra categoría.',
    shown: (shown: number, total: number) =>
      `${f.number(shown)} mostrados de ${f.count(total, { one: 'archivo', other: 'archivos' })}`,
    unnamedBlobs: (n: number) =>
      `${f.count(n, { one: 'blob guardado contiene', other: 'blobs guardados contienen' })} archivos subidos desde otro ordenador con el nombre guardado dentro, y ningún manifiesto de la bóveda leído aquí los nombra, así que no se muestran. El manifiesto se lee cuando la clave de esta bóveda está en este ordenador (escrita con las palabras del kit del propietario); la recuperación los desempaqueta en cualquier caso.`,
    manifestUnread:
      'No se pudo leer ahora el manifiesto de la bóveda del servicio, así que pueden faltar archivos añadidos desde otro ordenador. Comprueba la conexión y vuelve a abrir esta pestaña.',
  },
  assets: {
    realNames: 'Decir al servicio los nombres reales de los archivos que se suban a esta bóveda',
    realNamesOff:
      'Desactivado (recomendado): los archivos nuevos llegan al servicio como file-….vault, sin carpeta, tipo ni fecha. Sus nombres reales viajan solo dentro de los archivos cifrados; este ordenador los muestra desde su propia lista de subidas y en otros aparecen al descargar los archivos.',
    realNamesOn:
      'Activado: el servicio conoce el nombre, la ruta de carpetas, el tipo y la fecha de modificación de cada archivo que se suba a esta bóveda a partir de ahora (nunca su contenido). Los archivos ya subidos conservan el nombre con que se enviaron.',
  },
  // What the service's store does with files (point 7 of issue 27), credits and the agent key.
  uploadCost: {
    permanentStore:
      'Este servicio guarda los archivos en un almacén permanente (Arweave): nada de lo que se le envía puede borrarse nunca, ni borrando el archivo ni la bóveda. Los archivos cifrados son públicos, y quien tenga suficientes kits de los guardianes, o su kit de propietario, podrá abrirlos, ahora o dentro de décadas.',
    permanentFirst: 'Suba solo lo que acepte que pueda leer para siempre quien tenga esos kits.',
    alreadyTitle: 'Ya tiene copia',
    alreadyStored: (files: number) =>
      `${f.count(files, { one: 'archivo ya está', other: 'archivos ya están' })} en esta bóveda (el mismo contenido, con cualquier nombre): se dejan fuera, sin cobrar.`,
    alreadyOn: (date: string) => `copia guardada el ${date}`,
    alreadyMore: (more: number) => `y ${f.count(more, { one: 'más', other: 'más' })}`,
    uploadAgain: 'Subir otra vez de todos modos',
    uploadAgainNote: 'Otra copia cuesta créditos como una subida nueva.',
    close: 'Cerrar',
  },
  deleteVault: {
    forgets: (losses: string) =>
      `El servicio olvida ${losses}: deja de listarlos y no se envía nada a nadie.`,
    notePermanent:
      'Quita la bóveda del servicio: deja de listarla y nadie recibirá nada de ella. Este servicio guarda los archivos en un almacén permanente (Arweave): los archivos cifrados no se borran nunca, y los kits de los guardianes y su kit de propietario siguen abriéndolos.',
    permanentStore:
      'Este servicio guarda los archivos en un almacén permanente (Arweave): borrar la bóveda no los borra. Los archivos cifrados siguen públicos para siempre, y quien tenga suficientes kits de los guardianes, o su kit de propietario, puede seguir abriéndolos.',
    permanentKits:
      'Por eso los kits de los guardianes y su kit de propietario siguen importando mientras exista alguno: nada de lo que hagan el servicio o esta aplicación puede cerrar esos archivos.',
    unknownStore:
      'Este servicio no dice si al borrar se eliminan sus copias de los archivos cifrados. Hasta que quien lo gestiona confirme que sí, cuente con que los kits de los guardianes y su kit de propietario aún pueden abrirlas.',
  },
  credits: {
    buy: 'Comprar créditos al operador del servicio',
    opens: (url: string) =>
      `Abre ${url} en su navegador: la página que el operador de este servicio indica para comprar créditos.`,
    nowhereToBuy:
      'Este servicio no dice dónde comprar créditos: pida al operador de este servicio (quien lo gestiona) que añada créditos a su cuenta.',
  },
  checkInLinks: {
    title: 'Enlace de señal de vida en los correos de recordatorio',
    off: 'Desactivado (más seguro): los recordatorios le piden registrar su señal de vida en la aplicación y no llevan enlace, así que leer su correo no basta para hacerlo por usted.',
    on: 'Activado: cada recordatorio lleva un enlace para registrar su señal de vida en un paso. Cualquiera que pueda leer su correo puede hacerlo por usted.',
    turnOn: 'Poner un enlace en los recordatorios…',
    confirmTitle: '¿Poner un enlace de un paso en los recordatorios?',
    confirm: 'Poner el enlace',
    tradeOff:
      'Cualquiera que pueda leer su correo puede registrar su señal de vida por usted. Alguien con acceso a su buzón (una contraseña compartida o robada, su proveedor de correo) podría seguir aplazando la entrega, y sus herederos no recibirían nada mientras le queden créditos.',
    convenience:
      'A cambio puede hacerlo desde el correo sin abrir esta aplicación: un clic y una página de confirmación. Cada enlace sirve una vez, para un plazo; al desactivarlo, los enlaces ya enviados dejan de funcionar.',
    turnOff: 'Quitar el enlace de los recordatorios',
    turnedOn: 'Los recordatorios llevan ahora un enlace de un paso.',
    turnedOff: 'Los recordatorios ya no llevan enlace, y los enlaces ya enviados dejan de funcionar.',
  },
  unlockCheckIn: {
    keyCan:
      'Quien tenga esa clave puede leer en el servicio: sus bóvedas y su configuración, los nombres de sus archivos tal como los guarda el servicio, los nombres y direcciones de correo de sus guardianes y herederos, y sus archivos cifrados (puede descargarlos, pero no abrirlos sin la clave de la bóveda o suficientes kits). También puede registrar su señal de vida, lo que gasta créditos y sigue aplazando la entrega.',
    keyCannot:
      'No puede abrir sus archivos, subir, borrar, añadir ni quitar guardianes o herederos, cambiar la entrega, ni iniciarla o cancelarla.',
    turnedOffRevoked:
      'Desactivado. La clave de lectura y señal de vida se revocó en el servicio y se quitó de este ordenador: ya no funciona en ningún sitio.',
    turnedOffStillValid: (last4: string, service: string) =>
      `Desactivado, y la clave se quitó de este ordenador. Pero sigue funcionando en ${service}: este servicio no ofrece a la aplicación ninguna forma de revocar claves. Revoque la clave que termina en ${last4} en los ajustes del panel de ${service}, o pida a su operador que lo haga (admin revoke-key).`,
  },
})
