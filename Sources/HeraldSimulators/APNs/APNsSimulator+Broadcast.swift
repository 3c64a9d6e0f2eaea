extension APNsSimulator {
    // MARK: Broadcast channels and broadcasts (with Configuration.broadcast)

    /// The channels `bundleID` has, oldest first: those created over the channel management API or with
    /// ``createChannel(for:messageStoragePolicy:)``, minus the deleted ones.
    public func channels(for bundleID: String) -> [Channel] {
        self.store.channels(of: bundleID)
    }

    /// Every accepted broadcast with its channel, headers and body, in order (empty unless
    /// ``Configuration/recordPayloads`` is on).
    public func acceptedBroadcasts() -> [AcceptedBroadcast] {
        self.store.state.withLock { $0.acceptedBroadcasts }
    }

    /// Creates a channel of `bundleID` as if a provider had asked for one, ignoring
    /// ``Configuration/maxChannelsPerBundle``, and returns its id.
    @discardableResult
    public func createChannel(for bundleID: String, messageStoragePolicy: MessageStoragePolicy) -> String {
        // Without a limit the store always creates one.
        self.store.createChannel(bundleID: bundleID, policy: messageStoragePolicy, limit: nil) ?? ""
    }

    /// Deletes the channel `channelID` behind the providers' back (as turning Broadcast Capability off would):
    /// broadcasts on it get `400 ChannelNotRegistered` from now on. Returns whether it existed.
    @discardableResult
    public func deleteChannel(_ channelID: String) -> Bool {
        self.store.deleteChannel(channelID, of: nil)
    }
}
