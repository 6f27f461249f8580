/**
 * The endpoint a bank API path calls, as a template: `/v1/<resource>/<id>/<action>` with the id as `{id}`
 * (`/v1/connections/{id}/sync`), so metrics and span names never carry ids. The API's only fixed path at the id's
 * place is `/v1/transactions/sync`.
 */
export function pathTemplate(path: string): string {
  const segments = path.split('?', 1)[0]!.split('/')
  // ['', 'v1', resource, id, action…]
  if (segments.length < 4 || segments[3] === '') return segments.join('/')
  if (!FIXED_SECOND_SEGMENTS.has(`${segments[2]}/${segments[3]}`)) segments[3] = '{id}'
  return segments.join('/')
}

const FIXED_SECOND_SEGMENTS = new Set(['transactions/sync'])
