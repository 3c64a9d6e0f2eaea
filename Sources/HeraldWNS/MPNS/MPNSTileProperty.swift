/// A tile property a `tile_mapping` may set (pushd-api.md §10.6), in the order the elements are written.
///
/// Mapping keys are matched without regard to case or underscores, so rs/pushd's `backBackgroundImage`,
/// the element name `BackBackgroundImage` and `back_background_image` all name the same property.
public enum MPNSTileProperty: String, Sendable, Hashable, CaseIterable {
    /// The tile's `Id` attribute (the tile to update), not an element.
    case id = "Id"
    /// The front image URI.
    case backgroundImage = "BackgroundImage"
    /// The number on the front.
    case count = "Count"
    /// The front title.
    case title = "Title"
    /// The back image URI.
    case backBackgroundImage = "BackBackgroundImage"
    /// The back title.
    case backTitle = "BackTitle"
    /// The back text.
    case backContent = "BackContent"
    /// The small tile image URI (Windows Phone 8 flip tiles only, like the three below).
    case smallBackgroundImage = "SmallBackgroundImage"
    /// The wide tile front image URI.
    case wideBackgroundImage = "WideBackgroundImage"
    /// The wide tile back text.
    case wideBackContent = "WideBackContent"
    /// The wide tile back image URI.
    case wideBackBackgroundImage = "WideBackBackgroundImage"

    /// The property a mapping key names, if any.
    public init?(mappingKey: String) {
        let wanted = Self.folded(mappingKey)
        guard let match = Self.allCases.first(where: { Self.folded($0.rawValue) == wanted }) else { return nil }
        self = match
    }

    /// Whether the property exists only on Windows Phone 8 flip tiles (`version` ≥ 8.0).
    public var isFlipTileOnly: Bool {
        switch self {
        case .smallBackgroundImage, .wideBackgroundImage, .wideBackContent, .wideBackBackgroundImage: true
        default: false
        }
    }

    private static func folded(_ key: String) -> String {
        key.lowercased().filter { $0 != "_" }
    }
}
