export { bankrecApiDocument } from './bankrec-api-document.js'
