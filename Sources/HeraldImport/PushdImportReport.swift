/// What an import of an rs/pushd database did: counts of what was imported and of what was
/// skipped, by reason, with a few ids of each for the operator to look at.
public struct PushdImportReport: Sendable, Equatable {
    /// Whether nothing was written (`--dry-run`).
    public var dryRun: Bool
    /// Ids `subscribers` listed (and the import read).
    public var subscribersRead = 0
    /// Subscribers written that Herald did not have.
    public var subscribersInserted = 0
    /// Subscribers written over those Herald had (a re-run).
    public var subscribersUpdated = 0
    /// On a dry run, subscribers that passed validation (the store was not asked).
    public var subscribersValid = 0
    /// Subscribers skipped, by reason.
    public var skipped: [PushdSkipReason: Int] = [:]
    /// Up to ``exampleLimit`` ids per skip reason.
    public var skippedExamples: [PushdSkipReason: [String]] = [:]
    /// Imported subscribers whose `proto` is not a configured provider, by proto (skipped at delivery, §6.2).
    public var unknownProtocols: [String: Int] = [:]
    /// Up to ``exampleLimit`` ids per proto of ``unknownProtocols``.
    public var unknownProtocolExamples: [String: [String]] = [:]
    /// Subscriptions written (or, on a dry run, valid).
    public var subscriptions = 0
    /// Subscriptions skipped, by reason (`invalid event name`, `non-numeric options`).
    public var subscriptionsSkipped: [String: Int] = [:]
    /// Events whose statistics were written (or, on a dry run, would be).
    public var events = 0
    /// Events skipped, by reason (`no subscriptions`, `malformed statistics`, ...).
    public var eventsSkipped: [String: Int] = [:]

    /// How many ids per reason ``skippedExamples`` keeps.
    public static let exampleLimit = 5

    /// An empty report.
    public init(dryRun: Bool) {
        self.dryRun = dryRun
    }

    /// Subscribers written (inserted or updated), or on a dry run, valid.
    public var subscribersImported: Int { dryRun ? subscribersValid : subscribersInserted + subscribersUpdated }

    /// Subscribers skipped for any reason.
    public var subscribersSkipped: Int { skipped.values.reduce(0, +) }

    /// Counts a skipped subscriber.
    mutating func skip(_ id: String, _ reason: PushdSkipReason) {
        skipped[reason, default: 0] += 1
        if skippedExamples[reason, default: []].count < Self.exampleLimit {
            skippedExamples[reason, default: []].append(id)
        }
    }

    /// Counts an imported subscriber whose proto is not a configured provider.
    mutating func countUnknownProtocol(_ proto: String, id: String) {
        unknownProtocols[proto, default: 0] += 1
        if unknownProtocolExamples[proto, default: []].count < Self.exampleLimit {
            unknownProtocolExamples[proto, default: []].append(id)
        }
    }

    /// The summary printed at the end, one fact per line.
    public var summary: String {
        var lines: [String] = []
        let verb = dryRun ? "would import" : "imported"
        lines.append(dryRun ? "Dry run: nothing was written." : "Import finished.")
        if dryRun {
            lines.append("subscribers: \(subscribersRead) read, \(subscribersValid) \(verb), \(subscribersSkipped) skipped")
        } else {
            lines.append(
                "subscribers: \(subscribersRead) read, \(subscribersImported) imported (\(subscribersInserted) new, \(subscribersUpdated) updated), "
                    + "\(subscribersSkipped) skipped")
        }
        for (reason, count) in skipped.sorted(by: { $0.key < $1.key }) {
            let examples = skippedExamples[reason, default: []].joined(separator: ", ")
            lines.append("  skipped \(count): \(reason.rawValue)" + (examples.isEmpty ? "" : " (e.g. \(examples))"))
        }
        for (proto, count) in unknownProtocols.sorted(by: { $0.key < $1.key }) {
            let examples = unknownProtocolExamples[proto, default: []].joined(separator: ", ")
            lines.append(
                "  \(verb) \(count) with proto \"\(proto)\", which is not a configured provider (skipped at delivery until configured)"
                    + (examples.isEmpty ? "" : " (e.g. \(examples))"))
        }
        if !unknownProtocols.isEmpty {
            // Normalization follows the configured kind: an APNs provider missing from the
            // configuration keeps its tokens' case, and the app's next registration would not match.
            lines.append("  (tokens are normalized by their provider's kind: configure every provider, e.g. with --config, and run again)")
        }
        lines.append("subscriptions: \(subscriptions) \(verb), \(subscriptionsSkipped.values.reduce(0, +)) skipped")
        for (reason, count) in subscriptionsSkipped.sorted(by: { $0.key < $1.key }) {
            lines.append("  skipped \(count): \(reason)")
        }
        lines.append("events: statistics of \(events) \(verb), \(eventsSkipped.values.reduce(0, +)) skipped")
        for (reason, count) in eventsSkipped.sorted(by: { $0.key < $1.key }) {
            lines.append("  skipped \(count): \(reason)")
        }
        return lines.joined(separator: "\n")
    }
}
