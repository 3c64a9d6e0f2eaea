/// Why a Matrix push gateway request is refused before anything is queued (compat.md §8.3).
///
/// It is answered in one place as `{"errcode":"<errcode>","error":"<message>"}` with ``status``.
/// The texts of the `M_BAD_JSON` cases are Sygnal's own (`sygnal/http.py`, `sygnal/notifications.py`),
/// so that a homeserver's logs read the same as they did with Sygnal.
struct MatrixRequestError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The Matrix `errcode` of a refusal; new codes may be added.
    struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The codes there are; raw values are the wire `errcode`s.
        private enum Base: String {
            case notJSON = "M_NOT_JSON", badJSON = "M_BAD_JSON", tooLarge = "M_TOO_LARGE", unrecognized = "M_UNRECOGNIZED"
        }

        /// Which code it is.
        private let base: Base

        /// Wraps `base`; only the named constants below exist.
        private init(_ base: Base) {
            self.base = base
        }

        /// The body is not JSON at all.
        static let notJSON = Code(.notJSON)
        /// The body is JSON but not a notification the gateway can read.
        static let badJSON = Code(.badJSON)
        /// The body is over the size limit.
        static let tooLarge = Code(.tooLarge)
        /// Another method on the notify path.
        static let unrecognized = Code(.unrecognized)

        /// The `errcode` text (`M_BAD_JSON`).
        var errcode: String { base.rawValue }

        /// The `errcode` text.
        var description: String { base.rawValue }
    }

    /// What exactly is wrong; kept private so that cases can be added without breaking callers.
    private enum Kind: Equatable {
        /// See ``MatrixRequestError/notJSON``.
        case notJSON
        /// See ``MatrixRequestError/notificationNotObject``.
        case notificationNotObject
        /// See ``MatrixRequestError/devicesNotList``.
        case devicesNotList
        /// See ``MatrixRequestError/noDevices``.
        case noDevices
        /// See ``MatrixRequestError/invalidField(_:)``; the message.
        case invalidField(String)
        /// See ``MatrixRequestError/tooLarge(limitBytes:)``.
        case tooLarge(limitBytes: Int)
        /// See ``MatrixRequestError/unrecognized(method:)``.
        case unrecognized(method: String)
    }

    /// What is wrong.
    private let kind: Kind

    /// Wraps `kind`; callers use the named constructors below.
    private init(_ kind: Kind) {
        self.kind = kind
    }

    /// The body does not parse as JSON.
    static let notJSON = MatrixRequestError(.notJSON)
    /// There is no `notification` key, or its value is not an object.
    static let notificationNotObject = MatrixRequestError(.notificationNotObject)
    /// `devices` is missing or is not an array.
    static let devicesNotList = MatrixRequestError(.devicesNotList)
    /// `devices` is an empty array.
    static let noDevices = MatrixRequestError(.noDevices)
    /// A field the gateway reads has the wrong JSON type; `message` names it, in Sygnal's words.
    static func invalidField(_ message: String) -> MatrixRequestError { MatrixRequestError(.invalidField(message)) }
    /// The body is over `limitBytes` bytes.
    static func tooLarge(limitBytes: Int) -> MatrixRequestError { MatrixRequestError(.tooLarge(limitBytes: limitBytes)) }
    /// The path was asked with `method`, which it does not answer.
    static func unrecognized(method: String) -> MatrixRequestError { MatrixRequestError(.unrecognized(method: method)) }

    /// The Matrix error code.
    var code: Code {
        switch kind {
        case .notJSON: .notJSON
        case .notificationNotObject, .devicesNotList, .noDevices, .invalidField: .badJSON
        case .tooLarge: .tooLarge
        case .unrecognized: .unrecognized
        }
    }

    /// The `errcode` text, shorthand for `code.errcode`.
    var errcode: String { code.errcode }

    /// The HTTP status it is answered with.
    var status: Int {
        switch kind {
        case .notJSON, .notificationNotObject, .devicesNotList, .noDevices, .invalidField: 400
        case .tooLarge: 413
        case .unrecognized: 405
        }
    }

    /// The `error` text for the homeserver's logs.
    var message: String {
        switch kind {
        case .notJSON: "Expected JSON request body"
        case .notificationNotObject: "Invalid notification: expecting object in 'notification' key"
        case .devicesNotList: "Expected list in 'devices' key"
        case .noDevices: "No devices in notification"
        case .invalidField(let message): message
        case .tooLarge(let limit): "Request body is over \(limit) bytes"
        case .unrecognized(let method): "Unrecognized request: \(method) is not allowed here"
        }
    }

    /// The code and the message, for logs.
    var description: String { "\(code): \(message)" }
}
