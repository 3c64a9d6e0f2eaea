extension DeliveryRecord {
    /// The dead letter this record leaves, with the failure's reason and status: `nil` unless the
    /// effect is a failure (`failed` or `subscriberFailure`) and the record carries content to keep.
    public var deadLetterFailure: (content: DeadLetterContent, reason: String, status: Int?)? {
        guard let deadLetter else { return nil }
        switch effect {
        case .failed(let reason, let status), .subscriberFailure(let reason, let status):
            return (deadLetter, reason, status)
        case .delivered, .deadToken:
            return nil
        }
    }
}
