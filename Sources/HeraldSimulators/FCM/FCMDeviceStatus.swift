/// What the simulator knows about a well-formed registration token.
enum FCMDeviceStatus {
    /// Deliverable.
    case active
    /// The app instance is gone: `404 UNREGISTERED`.
    case unregistered
    /// The token belongs to another sender: `403 SENDER_ID_MISMATCH`.
    case otherSender
    /// Refused as not a valid FCM token: `400 INVALID_ARGUMENT`.
    case invalid
}
