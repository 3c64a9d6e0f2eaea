import HeraldCore
import HeraldStore
import Logging
import PostgresNIO

extension PostgresStore {
    /// Listens on the channel for as long as the store runs, relaying the other nodes' messages
    /// to this process's wake-up stream; resubscribes after a lost connection.
    ///
    /// After each resubscription it wakes the local workers once: whatever was committed while
    /// nobody listened is found by their claim, not lost with the notifications. (Before the first
    /// subscription there is nothing to catch up on: workers claim when they start.)
    func listen() async {
        do {
            try await lifecycle.waitUntilReady(timeout: .seconds(86_400 * 365))
        } catch {
            return
        }
        let channel = configuration.channel
        var delay = Duration.milliseconds(100)
        var resubscribing = false
        while !Task.isCancelled, !lifecycle.isClosed {
            let subscribed = AcquiredFlag()
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: channel) { notifications in
                        self.logger.debug("listening for other nodes", metadata: ["channel": "\(channel)"])
                        subscribed.set()
                        self.listening.set(true)
                        if resubscribing {
                            self.wakeUpHub.yield(.jobs)
                            self.wakeUpHub.yield(.deliveries)
                        }
                        for try await notification in notifications {
                            await self.receive(notification.payload)
                        }
                    }
                }
            } catch {
                if Task.isCancelled || lifecycle.isClosed { return }
                logger.warning("lost the notification listener; resubscribing", metadata: ["error": "\(Self.storeError(error))"])
            }
            listening.set(false)
            resubscribing = resubscribing || subscribed.isSet
            // A listener that was up starts over quickly; one that cannot subscribe backs off.
            delay = subscribed.isSet ? .milliseconds(100) : min(delay * 2, .seconds(5))
            do {
                try await Task.sleep(for: delay)
            } catch {
                return
            }
        }
    }

    /// Relays one notification; this node's own were relayed in-process at their commit.
    private func receive(_ payload: String) async {
        guard let (node, message) = WakeUpMessage.parse(payload) else {
            logger.debug("ignoring a notification this store did not write")
            return
        }
        guard node != nodeID else { return }
        switch message {
        case .jobs: wakeUpHub.yield(.jobs)
        case .deliveries: wakeUpHub.yield(.deliveries)
        case .event(let event): wakeUpHub.yield(.event(event))
        case .eventReference(let id):
            do {
                let logger = self.logger
                let json: String? = try await withConnection { connection in
                    try await connection.query("SELECT event FROM announcements WHERE id = \(id)", logger: logger).collect()
                        .first?.decode(String.self)
                }
                guard let json else { return }
                wakeUpHub.yield(.event(try WakeUpMessage.event(fromJSON: json)))
            } catch {
                logger.warning("cannot read an announced event", metadata: ["id": "\(id)", "error": "\(error)"])
            }
        }
    }
}
