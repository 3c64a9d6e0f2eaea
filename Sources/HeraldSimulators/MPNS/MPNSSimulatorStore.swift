import Foundation
import Hummingbird
import Synchronization

/// The simulator's configuration and locked state, shared by the routes.
final class MPNSSimulatorStore: Sendable {
    let configuration: MPNSSimulator.Configuration
    let state: Mutex<MPNSSimulatorState>
    /// The counters and the accepted notifications.
    let recorder = SimulatorRecorder<MPNSSimulator.Statistics, MPNSSimulator.Accepted>(recordTokens: false)

    /// The headers of an accepted notification that ``MPNSSimulator/Configuration/onAccepted`` hears about.
    private static let deliveryHeaders = ["X-WindowsPhone-Target", "X-NotificationClass", "X-MessageID"]

    /// The notification classes of each target: immediate, within 450 s, within 900 s.
    static let toastClasses: Set<Int> = [2, 12, 22]
    static let tileClasses: Set<Int> = [1, 11, 21]
    static let rawClasses: Set<Int> = [3, 13, 23]

    /// A failed check: status and the three status headers (absent for malformed requests, as MPNS).
    private struct Refusal: Error {
        var status: Int
        var statusHeaders: (notification: String, subscription: String, device: String)?
        var retryAfter: Int?

        init(status: Int, statusHeaders: (notification: String, subscription: String, device: String)? = nil, retryAfter: Int? = nil) {
            self.status = status
            self.statusHeaders = statusHeaders
            self.retryAfter = retryAfter
        }
    }

    init(configuration: MPNSSimulator.Configuration) {
        self.configuration = configuration
        self.state = Mutex(MPNSSimulatorState(seed: configuration.seed))
    }

    /// `POST <channel URI>`: a toast, tile or raw notification (providers.md §5.1).
    func notify(_ request: Request, channelID: String) async throws -> Response {
        recorder.countRequest()
        let (injection, delay, channel) = state.withLock { state in
            let (injection, delay) = state.faults.arrive()
            return (injection, delay, state.channels[channelID])
        }
        if delay > 0 { try await Task.sleep(for: .milliseconds(delay)) }
        do {
            switch injection {
            case .status(let status, let retryAfter)?: throw Self.refusal(status: status, retryAfter: retryAfter)
            case .throttle(let retryAfter)?: throw Self.refusal(status: 406, retryAfter: retryAfter)
            case .delay?, nil: break
            }
            // An unknown channel is one that expired long ago.
            guard let channel, channel != .expired else { throw Self.refusal(status: 404, retryAfter: nil) }
            let (notificationClass, target) = try check(request)
            let body = Array(try await request.body.collect(upTo: 1 << 20).readableBytesView)
            try check(body, notificationClass: notificationClass)
            switch channel {
            case .inactive: throw Self.refusal(status: 412, retryAfter: nil)
            case .queueFull: return answer(200, ("QueueFull", "Active", "Connected"))
            case .suppressed: return answer(200, ("Suppressed", "Active", "Connected"))
            case .active, .expired: break
            }
            var record: MPNSSimulator.Accepted?
            if configuration.recordPayloads {
                record = MPNSSimulator.Accepted(
                    channel: state.withLock { $0.channelURI(id: channelID) }, notificationClass: notificationClass,
                    target: target, headers: SimulatorHTTPAnswer.headers(request),
                    body: String(decoding: body, as: UTF8.self))
            }
            recorder.recordAccepted(token: nil, record: record)
            if let onAccepted = configuration.onAccepted {
                onAccepted(SimulatorDelivery(
                    service: "mpns", recipients: [channelID],
                    fields: SimulatorDelivery.fields(Self.deliveryHeaders) { SimulatorHTTPAnswer.header(request, $0) },
                    payload: String(decoding: body, as: UTF8.self)))
            }
            var headers = Self.statusHeaders("Received", "Active", "Connected")
            if let messageID = SimulatorHTTPAnswer.header(request, "X-MessageID") { headers.append(("X-MessageID", messageID)) }
            return SimulatorHTTPAnswer.make(status: 200, headers: headers)
        } catch let refusal as Refusal {
            return refuse(refusal)
        }
    }

    /// The header checks: content type, notification class, and a target that fits the class.
    private func check(_ request: Request) throws(Refusal) -> (notificationClass: Int, target: String?) {
        let target = SimulatorHTTPAnswer.header(request, "X-WindowsPhone-Target")
        guard let classText = SimulatorHTTPAnswer.header(request, "X-NotificationClass"), let notificationClass = Int(classText) else {
            throw Refusal(status: 400)
        }
        let expectedTarget: String?
        if Self.toastClasses.contains(notificationClass) {
            expectedTarget = "toast"
        } else if Self.tileClasses.contains(notificationClass) {
            expectedTarget = "token"
        } else if Self.rawClasses.contains(notificationClass) {
            expectedTarget = nil
        } else {
            throw Refusal(status: 400)
        }
        guard target == expectedTarget else { throw Refusal(status: 400) }
        if expectedTarget != nil {
            let contentType = SimulatorHTTPAnswer.header(request, "Content-Type")?.lowercased() ?? ""
            guard contentType.hasPrefix("text/xml") else { throw Refusal(status: 400) }
        }
        return (notificationClass, target)
    }

    /// The body checks: size, and for toasts and tiles a `wp:Notification` in the `WPNotification` namespace
    /// holding the element of the target.
    private func check(_ body: [UInt8], notificationClass: Int) throws(Refusal) {
        if Self.rawClasses.contains(notificationClass) {
            guard body.count <= configuration.maximumRawBytes else { throw Refusal(status: 400) }
            return
        }
        guard body.count <= configuration.maximumXMLBytes else { throw Refusal(status: 400) }
        guard case .success(let document) = SimulatorXMLDocument.parse(body, processNamespaces: true) else {
            throw Refusal(status: 400)
        }
        let root = document.root
        guard root.localName == "Notification", root.namespaceURI == "WPNotification" else { throw Refusal(status: 400) }
        let expected = Self.toastClasses.contains(notificationClass) ? "Toast" : "Tile"
        guard root.children.count == 1, root.children[0].localName == expected, root.children[0].namespaceURI == "WPNotification"
        else { throw Refusal(status: 400) }
    }

    /// The answer MPNS gave for `status`, with its status headers.
    private static func refusal(status: Int, retryAfter: Int?) -> Refusal {
        switch status {
        case 404: Refusal(status: 404, statusHeaders: ("Dropped", "Expired", "Disconnected"), retryAfter: retryAfter)
        case 406: Refusal(status: 406, statusHeaders: ("Dropped", "Active", "Connected"), retryAfter: retryAfter)
        case 412: Refusal(status: 412, statusHeaders: ("Dropped", "Active", "Inactive"), retryAfter: retryAfter)
        default: Refusal(status: status, statusHeaders: nil, retryAfter: retryAfter)
        }
    }

    private func refuse(_ refusal: Refusal) -> Response {
        recorder.recordRejection(refusal.status)
        configuration.logger.debug("MPNS notification refused", metadata: ["status": "\(refusal.status)"])
        var headers: [(String, String)] = []
        if let status = refusal.statusHeaders {
            headers = Self.statusHeaders(status.notification, status.subscription, status.device)
        }
        if let retryAfter = refusal.retryAfter { headers.append(("Retry-After", String(retryAfter))) }
        return SimulatorHTTPAnswer.make(status: refusal.status, headers: headers)
    }

    /// `X-NotificationStatus`, `X-SubscriptionStatus` and `X-DeviceConnectionStatus` with these values.
    private static func statusHeaders(_ notification: String, _ subscription: String, _ device: String) -> [(String, String)] {
        [("X-NotificationStatus", notification), ("X-SubscriptionStatus", subscription), ("X-DeviceConnectionStatus", device)]
    }

    private func answer(_ status: Int, _ statusHeaders: (String, String, String)) -> Response {
        recorder.recordRejection(status)
        return SimulatorHTTPAnswer.make(
            status: status,
            headers: Self.statusHeaders(statusHeaders.0, statusHeaders.1, statusHeaders.2))
    }
}
