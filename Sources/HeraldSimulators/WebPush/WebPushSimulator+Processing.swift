import Foundation

extension WebPushSimulator {
    /// Answers one push request: injected faults first, then validation in the order of providers.md §3.6.
    func process(_ request: WebPushIncomingRequest) async -> WebPushAnswer {
        let (injection, drawnDelay) = state.withLock { state -> (Injection?, Int) in
            state.requests += 1
            return state.faults.arrive()
        }
        var delay = drawnDelay
        if case .delay(let milliseconds)? = injection { delay += milliseconds }
        if delay > 0 { try? await Task.sleep(for: .milliseconds(delay)) }
        if case .status(let status, let retryAfter)? = injection {
            reject(request, status: status, reason: "injected \(status)")
            return .injected(status, retryAfter: retryAfter)
        }
        switch await validate(request) {
        case .success(let accepted):
            return accept(accepted, request: request)
        case .failure(let rejection):
            reject(request, status: rejection.answer.status, reason: rejection.reason)
            return rejection.answer
        }
    }

    /// A refusal: the answer and the reason logged and recorded.
    struct Refusal: Error {
        var answer: WebPushAnswer
        var reason: String

        init(_ status: Int, errno: Int, _ reason: String) {
            self.answer = .error(status, errno: errno, message: reason)
            self.reason = reason
        }
    }

    /// What a valid request carried, before it is recorded.
    struct Valid: Sendable {
        var entry: WebPushSimulatorState.Entry
        var plaintext: [UInt8]
        var bodyLength: Int
        var ttl: Int
        var urgency: String?
        var topic: String?
        var vapid: (key: [UInt8], subject: String)?
    }

    private func validate(_ request: WebPushIncomingRequest) async -> Result<Valid, Refusal> {
        // The subscription: unknown → 404, expired → 410 (or the configured status).
        guard let entry = state.withLock({ $0.subscriptions[request.subscriptionID] }) else {
            return .failure(Refusal(404, errno: 102, "Subscription not found"))
        }
        if entry.expired {
            return .failure(Refusal(configuration.expiredStatus, errno: 103, "Subscription expired"))
        }

        // VAPID (RFC 8292): 401 when absent, 403 when it does not verify or does not fit.
        var vapid: (key: [UInt8], subject: String)?
        let authorization = request.first("authorization")
        if authorization != nil || configuration.requiresVAPID || entry.applicationServerKey != nil {
            switch await verifier.verify(authorization, origin: origin ?? "", now: Date(), clockSkew: Double(configuration.clockSkew)) {
            case .missing(let reason):
                return .failure(Refusal(401, errno: 109, "VAPID required: \(reason)"))
            case .invalid(let reason):
                return .failure(Refusal(403, errno: 109, "VAPID invalid: \(reason)"))
            case .valid(let key, let subject):
                if let required = entry.applicationServerKey, required != key {
                    return .failure(Refusal(403, errno: 109, "VAPID key differs from the applicationServerKey of the subscription"))
                }
                vapid = (key, subject)
            }
        }

        // TTL: required, a non-negative integer; beyond 31 bits it means 2^31.
        let ttlValues = request.values("ttl")
        guard let ttlText = ttlValues.first else { return .failure(Refusal(400, errno: 111, "Missing TTL header")) }
        guard ttlValues.count == 1, !ttlText.isEmpty, ttlText.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            return .failure(Refusal(400, errno: 112, "Invalid TTL header"))
        }
        let ttl = ttlText.utf8.count > 10 ? 1 << 31 : min(Int(ttlText)!, 1 << 31)

        // Urgency: at most one, of four values.
        let urgencies = request.values("urgency")
        guard urgencies.count <= 1, urgencies.allSatisfy({ ["very-low", "low", "normal", "high"].contains($0) }) else {
            return .failure(Refusal(400, errno: 114, "Invalid Urgency header"))
        }

        // Topic: at most 32 characters of the base64url alphabet.
        let topics = request.values("topic")
        guard topics.count <= 1, topics.allSatisfy(Self.isTopic) else {
            return .failure(Refusal(400, errno: 113, "Topic must be at most 32 characters of the URL-safe base64 alphabet"))
        }

        guard let body = request.body, body.count <= configuration.maximumBodyLength else {
            return .failure(Refusal(413, errno: 104, "Payload of more than \(configuration.maximumBodyLength) bytes"))
        }

        var plaintext: [UInt8] = []
        if !body.isEmpty {
            let encodings = request.values("content-encoding").map { $0.lowercased() }
            guard encodings == ["aes128gcm"] else {
                let reason = encodings.isEmpty ? "Missing Content-Encoding for a body" : "Content-Encoding must be exactly aes128gcm"
                return .failure(Refusal(400, errno: encodings.isEmpty ? 101 : 110, reason))
            }
            // RFC 8291 §5: the VAPID signing key must differ from the message's ECDH key.
            if let vapid, body.count >= 86, Array(body[21..<86]) == vapid.key {
                return .failure(Refusal(400, errno: 110, "The VAPID key is the message's ECDH key"))
            }
            do {
                plaintext = try entry.keys.decrypt(body)
            } catch {
                return .failure(Refusal(400, errno: 110, "Cannot decrypt: \(error.description)"))
            }
        }
        return .success(Valid(
            entry: entry, plaintext: plaintext, bodyLength: body.count, ttl: ttl,
            urgency: urgencies.first, topic: topics.first, vapid: vapid))
    }

    private func accept(_ valid: Valid, request: WebPushIncomingRequest) -> WebPushAnswer {
        var shortenedTTL: Int?
        if let maximum = configuration.maximumTTL, valid.ttl > maximum { shortenedTTL = maximum }
        let messageID = state.withLock { state -> String in
            state.acceptedCount += 1
            state.nextMessage += 1
            let messageID = "\(valid.entry.subscription.id).\(state.nextMessage)"
            if configuration.recordMessages {
                state.accepted.append(Accepted(
                    subscriptionID: valid.entry.subscription.id,
                    endpoint: valid.entry.subscription.endpoint,
                    plaintext: valid.plaintext,
                    bodyLength: valid.bodyLength,
                    ttl: valid.ttl,
                    urgency: valid.urgency,
                    topic: valid.topic,
                    vapidSubject: valid.vapid?.subject,
                    vapidKey: valid.vapid.map { WebPushBase64URL.encode($0.key) },
                    messageID: messageID))
            }
            return messageID
        }
        configuration.logger.trace(
            "push accepted", metadata: ["subscription": "\(valid.entry.subscription.id)", "bytes": "\(valid.bodyLength)"])
        if let onAccepted = configuration.onAccepted {
            // What identifies the delivery: the subscription, and the RFC 8030 headers and VAPID contact that shape it.
            var fields: [(name: String, value: String)] = [("ttl", String(valid.ttl))]
            if let urgency = valid.urgency { fields.append(("urgency", urgency)) }
            if let topic = valid.topic { fields.append(("topic", topic)) }
            if let subject = valid.vapid?.subject { fields.append(("vapid-subject", subject)) }
            onAccepted(SimulatorDelivery(
                service: "webpush", recipients: [valid.entry.subscription.id], fields: fields,
                payload: String(decoding: valid.plaintext, as: UTF8.self)))
        }
        return .created(messageID: messageID, shortenedTTL: shortenedTTL)
    }

    private func reject(_ request: WebPushIncomingRequest, status: Int, reason: String) {
        state.withLock { state in
            state.rejections.append(Rejection(status: status, reason: reason, subscriptionID: request.subscriptionID))
        }
        configuration.logger.debug(
            "push refused", metadata: ["subscription": "\(request.subscriptionID)", "status": "\(status)", "reason": "\(reason)"])
    }

    /// Whether `text` matches `^[A-Za-z0-9_-]{1,32}$`.
    static func isTopic(_ text: String) -> Bool {
        let bytes = text.utf8
        guard !bytes.isEmpty, bytes.count <= 32 else { return false }
        return bytes.allSatisfy { byte in
            (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }
}
