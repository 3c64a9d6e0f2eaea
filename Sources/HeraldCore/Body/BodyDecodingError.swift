/// Why a request body could not be decoded, with the HTTP answer it calls for (§1.2).
///
/// A struct over a private enum, so that new causes can be added without
/// breaking callers that switch on errors.
public struct BodyDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Kind: Sendable, Equatable {
        case invalidJSON
        case tooManyParameters
    }

    private let kind: Kind

    private init(_ kind: Kind) {
        self.kind = kind
    }

    /// A JSON body that is malformed or not an object: 400.
    public static let invalidJSON = BodyDecodingError(.invalidJSON)
    /// A form body (or UDP query) with more than ``FormBodyDecoder/parameterLimit`` parameters: 413.
    public static let tooManyParameters = BodyDecodingError(.tooManyParameters)

    /// The HTTP status to answer with.
    public var status: Int {
        switch kind {
        case .invalidJSON: 400
        case .tooManyParameters: 413
        }
    }

    /// The text of the `{"error":…}` answer.
    public var message: String {
        switch kind {
        case .invalidJSON: "Invalid JSON body"
        case .tooManyParameters: "Too many parameters"
        }
    }

    /// The status and message, for logs.
    public var description: String { "\(status) \(message)" }
}
