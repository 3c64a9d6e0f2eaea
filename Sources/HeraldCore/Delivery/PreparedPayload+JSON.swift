extension PreparedPayload {
    /// The body's members when it is one JSON object, as the text between its braces
    /// (`"aps":{...},"k":"v"`), or `nil` when it is not a JSON object.
    ///
    /// The kinds that take JSON check it once per prepared payload, not per token: a body the
    /// service would refuse for every device fails here, as a message failure, without a send.
    public var jsonObjectMembers: Substring? {
        guard case .object(let members) = try? JSONBodyParser.parse(body) else { return nil }
        return membersText(isEmpty: members.isEmpty)
    }

    /// The members of the body's JSON object, as ``jsonObjectMembers``, when none of them names
    /// the message's target (`token`, `topic` or `condition`): a message whose target each send
    /// adds (FCM HTTP v1, Huawei Push Kit). The body is parsed once for both checks.
    public var untargetedMessageMembers: Substring? {
        guard case .object(let members) = try? JSONBodyParser.parse(body),
            !members.contains(where: { Self.targetKeys.contains($0.key) })
        else { return nil }
        return membersText(isEmpty: members.isEmpty)
    }

    /// The keys that name a message's target.
    private static let targetKeys: Set<String> = ["token", "topic", "condition"]

    /// The text between the braces of the body, an object.
    private func membersText(isEmpty: Bool) -> Substring {
        guard !isEmpty else { return "" }
        let trimmed = body.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }
        let text = String(trimmed.reversed())
        return text.dropFirst().dropLast()
    }

    /// The value of an integer header, when it is present and an integer.
    public func integerHeader(_ name: String) -> Int64? {
        headers[name].flatMap { Int64($0.trimmingPrefixWhitespace()) }
    }
}

extension String {
    fileprivate func trimmingPrefixWhitespace() -> Substring {
        self.drop { $0.isWhitespace }
    }
}
