extension PublishedEvent {
    /// The event as webhooks (§10.3) and Server-Sent Events listeners (§12.1) receive it:
    /// `{"event":…,"title":{…},"message":{…},"data":{…}}`, keys in that order, maps in
    /// their payload order and `{}` when empty; `var` is never included.
    ///
    /// With `includeText` false (a silent subscription) the `title` and `message` keys
    /// are left out: `{"event":"sport","data":{"x":"1"}}`.
    public func eventJSON(includeText: Bool) -> String {
        var json = JSONWriter()
        json.beginObject()
        json.key("event")
        json.string(event)
        if includeText {
            json.key("title")
            json.object(title.translations)
            json.key("message")
            json.object(message.translations)
        }
        json.key("data")
        json.object(data)
        json.endObject()
        return json.text
    }
}
