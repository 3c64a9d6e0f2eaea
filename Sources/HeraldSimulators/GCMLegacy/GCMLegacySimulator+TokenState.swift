extension GCMLegacySimulator {
    /// What GCM answers for one registration id; ids never configured are delivered.
    public enum TokenState: Sendable, Hashable {
        /// `message_id`.
        case registered
        /// The app was uninstalled: `error: NotRegistered`.
        case notRegistered
        /// Not a registration id: `error: InvalidRegistration`.
        case invalidRegistration
        /// Registered for another sender: `error: MismatchSenderId`.
        case mismatchSenderID
        /// GCM could not process it in time: `error: Unavailable`.
        case unavailable
        /// The app re-registered: `message_id` and `registration_id` (the canonical id).
        case canonical(String)
    }
}
