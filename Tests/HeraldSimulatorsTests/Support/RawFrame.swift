import NIOCore

/// One HTTP/2 frame as read off the wire.
struct RawFrame: Sendable {
    static let data: UInt8 = 0x0
    static let headers: UInt8 = 0x1
    static let rstStream: UInt8 = 0x3
    static let settings: UInt8 = 0x4
    static let goAway: UInt8 = 0x7

    let type: UInt8
    let flags: UInt8
    let streamID: UInt32
    let payload: ByteBuffer

    var isSettingsAck: Bool { self.type == Self.settings && self.flags & 0x1 != 0 }

    /// `SETTINGS_MAX_CONCURRENT_STREAMS` if this is a SETTINGS frame carrying it.
    var maxConcurrentStreams: UInt32? {
        guard self.type == Self.settings, !self.isSettingsAck else { return nil }
        var payload = self.payload
        var value: UInt32?
        while let identifier = payload.readInteger(as: UInt16.self), let setting = payload.readInteger(as: UInt32.self)
        {
            if identifier == 0x3 {
                value = setting
            }
        }
        return value
    }

    /// Last stream id, error code and debug text of a GOAWAY frame.
    var goAway: (lastStreamID: UInt32, errorCode: UInt32, debugText: String)? {
        guard self.type == Self.goAway else { return nil }
        var payload = self.payload
        guard let lastStreamID = payload.readInteger(as: UInt32.self),
            let errorCode = payload.readInteger(as: UInt32.self)
        else { return nil }
        return (lastStreamID & 0x7FFF_FFFF, errorCode, payload.readString(length: payload.readableBytes) ?? "")
    }
}
