extension Subscriber {
    /// The subscriber as the API returns it (§4.2, §4.3): compact JSON, keys in the
    /// order `proto, token, lang, badge, version, category, contentAvailable` (those
    /// set), `created, updated`, then `id` when `includeID` is true.
    ///
    /// Every stored value goes through the §3.1 typing rule (``JSONWriter/storedText(_:)``),
    /// `token` and `lang` included, as rs/pushd returned them; the id is always a string.
    public func jsonText(includeID: Bool) -> String {
        var json = JSONWriter(capacity: 128 + token.utf8.count)
        json.beginObject()
        writeMembers(into: &json, includeID: includeID)
        json.endObject()
        return json.text
    }

    /// Writes the members of ``jsonText(includeID:)`` into an object `json` has open, so that a
    /// route answering more about a subscriber (the dashboard's search) adds its keys after them.
    public func writeMembers(into json: inout JSONWriter, includeID: Bool) {
        json.key("proto")
        json.storedText(proto)
        json.key("token")
        json.storedText(token)
        for name in SubscriberFields.names {
            guard let value = fields[name] else { continue }
            json.key(name)
            json.storedText(value)
        }
        json.key("created")
        json.number(created)
        json.key("updated")
        json.number(updated)
        if includeID {
            json.key("id")
            json.string(id.rawValue)
        }
    }
}
