/// What a scripted request to the WNS, MPNS or legacy GCM simulator gets instead of ordinary processing.
public enum HTTP1SimulatorInjection: Sendable, Hashable {
    /// Answer with this status in the service's own error form (its headers and body for that status), plus
    /// `Retry-After` (seconds) when given.
    case status(Int, retryAfter: Int? = nil)
    /// The service's throttling answer (WNS and MPNS `406`, GCM `429`), with `Retry-After` (seconds) when given.
    case throttle(retryAfter: Int? = nil)
    /// Process the request normally, but answer only after this many milliseconds.
    case delay(milliseconds: Int)

    /// `500`.
    public static let internalServerError = HTTP1SimulatorInjection.status(500)
    /// `503`.
    public static let serviceUnavailable = HTTP1SimulatorInjection.status(503)
}
