/** The second held-out batch's kit: the main book and the picker seeded 2512 (see write-held-out-2-cases.ts). */
import { caseKit } from '../../test/support/case-kit.js'
import { loadBook } from '../../test/support/realistic-book.js'

export const kit = caseKit(loadBook('main'), 2512)
