import HeraldCore

/// Why a gorush request is refused before anything is accepted, with gorush's exact texts
/// (compat.md §6.1); answered as `400 {"code":400,"message":"<text>"}` in one place.
struct GorushRequestError: Error, Equatable {
    private enum Kind: Equatable {
        case missingNotifications
        case emptyNotifications
        case overLimit(Int)
    }

    private let kind: Kind

    private init(_ kind: Kind) {
        self.kind = kind
    }

    /// The body is not JSON, `notifications` is missing or null, or a known field has the wrong JSON type.
    static let missingNotifications = GorushRequestError(.missingNotifications)
    /// `notifications` is an empty array.
    static let emptyNotifications = GorushRequestError(.emptyNotifications)
    /// More than ``GorushRequest/maxNotifications`` notifications.
    static func overLimit(_ count: Int) -> GorushRequestError { GorushRequestError(.overLimit(count)) }

    /// gorush's message for it.
    var message: String {
        switch kind {
        case .missingNotifications: "Missing notifications field."
        case .emptyNotifications: "Notifications field is empty."
        case .overLimit(let count): "Number of notifications(\(count)) over limit(\(GorushRequest.maxNotifications))"
        }
    }
}
