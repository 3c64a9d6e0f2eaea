import Foundation

/// A notification rendered for legacy GCM: everything of the request body but `registration_ids`.
///
/// The pipeline hands the same rendered message to the sends of every subscriber of one variant; its ``id``
/// lets the provider gather those concurrent sends into one multicast request.
public struct GCMLegacyMessage: Sendable, Hashable {
    /// Identifies one rendering; sends of equal ids share requests.
    public let id: UUID
    /// The body members after `registration_ids`, as JSON text without braces
    /// (`"collapse_key":"sport","data":{"message":"Goal"}`).
    public let members: String

    /// Creates a message with a fresh identity.
    public init(members: String) {
        self.id = UUID()
        self.members = members
    }
}
