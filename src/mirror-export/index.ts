export { exportMirror, exportRecord, MIRROR_EXPORT_COLUMNS } from './export-mirror.js'
export type { MirrorExportFormat, MirrorExportRecord } from './export-mirror.js'
export { csvField, csvRecord } from './csv-field.js'
