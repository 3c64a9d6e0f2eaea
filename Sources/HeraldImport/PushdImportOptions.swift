/// How to import an rs/pushd database.
public struct PushdImportOptions: Sendable {
    /// The configured providers: name → kind (`apns`, `fcm`, `http`, ...). A subscriber whose
    /// `proto` is not among them is imported all the same and counted in the report.
    public var providerKinds: [String: String]
    /// Subscribers read from Redis (one pipeline) and written to the store (one call) at a time.
    public var batchSize: Int
    /// Read and validate everything, write nothing.
    public var dryRun: Bool

    /// Creates options; 2,000 subscribers per batch keeps a batch's memory to a few megabytes.
    public init(providerKinds: [String: String], batchSize: Int = 2_000, dryRun: Bool = false) {
        self.providerKinds = providerKinds
        self.batchSize = max(1, batchSize)
        self.dryRun = dryRun
    }

    /// Whether `proto` names a provider whose tokens are APNs device tokens, which Herald stores lower-cased.
    func isAPNs(_ proto: String) -> Bool {
        providerKinds[proto] == "apns"
    }
}
