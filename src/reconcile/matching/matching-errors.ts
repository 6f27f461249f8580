/** A request to the matching service that cannot be done as asked; `status` is the HTTP status it maps to. */
export class MatchingRequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Where in the request each problem is (`lines.2`), for the API's error details. */
    readonly details?: Array<{ path: string; message: string }>,
  ) {
    super(message)
    this.name = 'MatchingRequestError'
  }
}
