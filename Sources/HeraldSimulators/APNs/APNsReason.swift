/// The `reason` strings the simulator answers with (providers.md §1.4, and Apple's "Handling error responses from
/// Apple Push Notification service" for the broadcast and channel management APIs).
enum APNsReason {
    static let badCollapseId = "BadCollapseId"
    static let badDeviceToken = "BadDeviceToken"
    static let badExpirationDate = "BadExpirationDate"
    static let badMessageId = "BadMessageId"
    static let badPriority = "BadPriority"
    static let badTopic = "BadTopic"
    static let deviceTokenNotForTopic = "DeviceTokenNotForTopic"
    static let duplicateHeaders = "DuplicateHeaders"
    static let invalidPushType = "InvalidPushType"
    static let missingDeviceToken = "MissingDeviceToken"
    static let missingTopic = "MissingTopic"
    static let payloadEmpty = "PayloadEmpty"
    static let topicDisallowed = "TopicDisallowed"
    static let expiredProviderToken = "ExpiredProviderToken"
    static let invalidProviderToken = "InvalidProviderToken"
    static let missingProviderToken = "MissingProviderToken"
    static let unrelatedKeyIdInToken = "UnrelatedKeyIdInToken"
    static let badPath = "BadPath"
    static let methodNotAllowed = "MethodNotAllowed"
    static let unregistered = "Unregistered"
    static let payloadTooLarge = "PayloadTooLarge"
    static let tooManyProviderTokenUpdates = "TooManyProviderTokenUpdates"
    static let tooManyRequests = "TooManyRequests"
    static let internalServerError = "InternalServerError"
    static let serviceUnavailable = "ServiceUnavailable"
    static let shutdown = "Shutdown"

    // Broadcast push and channel management (iOS 18), with the status Apple gives each.

    /// `400`: the bundle id lacks Broadcast Capability.
    static let featureNotEnabled = "FeatureNotEnabled"
    /// `400`: no `apns-channel-id` header.
    static let missingChannelId = "MissingChannelId"
    /// `400`: `apns-channel-id` is not base64, or too long.
    static let badChannelId = "BadChannelId"
    /// `400`: `apns-channel-id` names no channel (of this bundle id, in this environment).
    static let channelNotRegistered = "ChannelNotRegistered"
    /// `400`: the JSON body has an attribute Apple does not recognize.
    static let badRequestParams = "BadRequestParams"
    /// `400`: the JSON body cannot be parsed.
    static let badRequestPayload = "BadRequestPayload"
    /// `400`: no `apns-push-type` (header of a broadcast, `push-type` of a channel creation).
    static let missingPushType = "MissingPushType"
    /// `400`: the bundle id already has the most channels it may have.
    static let cannotCreateChannelConfig = "CannotCreateChannelConfig"
    /// `403`: the bundle id in the path is not one the token's team or the certificate covers.
    static let topicMismatch = "TopicMismatch"
}
