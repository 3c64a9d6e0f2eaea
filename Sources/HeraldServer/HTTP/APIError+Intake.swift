import HeraldIntake

extension APIError {
    /// The rs/pushd API's answer to an intake refusal: the one place the HTTP front maps
    /// ``IntakeError`` to statuses and bodies.
    public init(refusal error: IntakeError) {
        switch error.code {
        case .invalidRequest: self = .badRequest(error.message)
        case .unknownSubscriber: self = .json(.notFound, error.message)
        case .unknownProvider: self = .invalidValue("proto")
        case .invalidToken: self = .invalidValue("token")
        case .destinationNotAllowed: self = .badRequest(error.message)
        case .overloaded: self = .overloaded(retryAfterSeconds: error.retryAfterSeconds ?? 1)
        case .idempotencyKeyReused: self = .json(.unprocessableContent, error.message)
        case .unknownPublish: self = .json(.notFound, error.message)
        case .notScheduled: self = .json(.conflict, error.message)
        case .outOfScope: self = .json(.forbidden, error.message)
        case .nameTaken: self = .json(.conflict, error.message)
        default: self = .unavailable
        }
    }
}

/// Runs an intake operation, answering its refusal in the rs/pushd API's form.
@discardableResult
func answering<T>(_ operation: () async throws(IntakeError) -> T) async throws(APIError) -> T {
    do {
        return try await operation()
    } catch {
        throw APIError(refusal: error)
    }
}
