/// A channel in the simulator's state, with its creation number so that listings keep creation order.
struct APNsChannelEntry: Sendable {
    let channel: APNsSimulator.Channel
    let sequence: Int
}
