import Logging
import NIOConcurrencyHelpers

/// A log handler that keeps every message with its metadata, so tests can check what was logged.
struct CollectingLogHandler: LogHandler {
    /// The shared store of rendered log lines.
    final class Store: Sendable {
        private let lines = NIOLockedValueBox<[String]>([])

        /// Every line logged so far.
        var all: [String] {
            self.lines.withLockedValue { $0 }
        }

        func append(_ line: String) {
            self.lines.withLockedValue { $0.append(line) }
        }
    }

    let store: Store
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { self.metadata[key] }
        set { self.metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = self.metadata
        event.metadata?.forEach { merged[$0.key] = $0.value }
        let rendered = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        self.store.append("\(event.level) \(event.message) \(rendered)")
    }

    /// A logger writing into a new store.
    static func makeLogger(level: Logger.Level = .debug) -> (Logger, Store) {
        let store = Store()
        var logger = Logger(label: "herald.http2.test") { _ in CollectingLogHandler(store: store) }
        logger.logLevel = level
        return (logger, store)
    }
}
