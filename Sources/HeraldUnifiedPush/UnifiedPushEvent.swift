import Foundation
import HeraldCore
import HeraldStore
import NIOCore

/// The events of a subscription, in ntfy's JSON form (what the ntfy app reads as a distributor):
/// `open`, `keepalive` and `message`, with `id`, `time`, `event` and `topic`; a message adds
/// `expires`, `message` (base64 with `encoding: "base64"` when the body is not UTF-8) and `urgency`.
enum UnifiedPushEvent {
    /// An `open` or `keepalive` event.
    static func control(_ event: String, topics: [String], id: String, time: Int64) -> String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("id")
        writer.string(id)
        writer.key("time")
        writer.number(time)
        writer.key("event")
        writer.string(event)
        writer.key("topic")
        writer.string(topics.joined(separator: ","))
        writer.endObject()
        return writer.text
    }

    /// A `message` event.
    static func message(_ message: PushMessage) -> String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("id")
        writer.string(message.id)
        writer.key("time")
        writer.number(message.time)
        writer.key("expires")
        writer.number(message.expiresAt)
        writer.key("event")
        writer.string("message")
        writer.key("topic")
        writer.string(message.topic)
        writer.key("message")
        if let text = String(validating: message.body, as: UTF8.self) {
            writer.string(text)
        } else {
            // The standard alphabet, which the ntfy app decodes.
            writer.string(Data(message.body).base64EncodedString())
            writer.key("encoding")
            writer.string("base64")
        }
        if let urgency = message.urgency {
            writer.key("urgency")
            writer.string(urgency)
        }
        writer.endObject()
        return writer.text
    }

    /// One event as a line of `/json`.
    static func jsonLine(_ json: String) -> ByteBuffer { ByteBuffer(string: json + "\n") }

    /// One event as `/sse` frames it: a message with its `id:`, the others with their `event:`.
    static func sseFrame(_ json: String, event: String, id: String?) -> ByteBuffer {
        var text = ""
        if let id { text += "id: \(id)\n" }
        if event != "message" { text += "event: \(event)\n" }
        text += "data: \(json)\n\n"
        return ByteBuffer(string: text)
    }
}
