/// Herald's version, sent as `User-Agent: Herald/<version>` and printed by `herald --version`.
public enum HeraldVersion {
    /// The release version.
    public static let current = "0.1.0"
}
