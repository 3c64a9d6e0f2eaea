/// How an `apns-topic` relates to the bundle ids the simulator serves.
enum APNsTopicVerdict {
    /// The topic is a served bundle id with the suffix of the push type.
    case allowed
    /// The topic names an allowed bundle id, but with the suffix of another push type (or none).
    case wrongPushType
    /// The topic belongs to no served bundle id.
    case notAllowed
}
