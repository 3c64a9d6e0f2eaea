/// Why a ``WebPushSimulator`` operation failed.
public struct WebPushSimulatorError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: Sendable, Equatable {
        case notStarted
        case notRunning
        case invalidApplicationServerKey
    }

    private let code: Code

    private init(_ code: Code) {
        self.code = code
    }

    /// The server stopped before it listened.
    static let notStarted = Self(.notStarted)
    /// The simulator is not running, so it has no origin to issue endpoints on.
    static let notRunning = Self(.notRunning)
    /// An `applicationServerKey` that is not a base64url uncompressed P-256 point.
    static let invalidApplicationServerKey = Self(.invalidApplicationServerKey)

    public var description: String {
        switch code {
        case .notStarted: "the Web Push simulator stopped before it listened"
        case .notRunning: "the Web Push simulator is not running"
        case .invalidApplicationServerKey: "applicationServerKey is not a base64url uncompressed P-256 public key"
        }
    }
}
