/// Where a read of UnifiedPush messages starts (``UnifiedPushStore/messages(of:after:now:limit:)``);
/// expired messages are never returned, whatever the cursor.
public enum PushCursor: Sendable, Equatable {
    /// Every message not expired (ntfy's `since=all`).
    case all
    /// Messages stored after the one with this sequence (``PushMessage/sequence``): how a reader
    /// continues from the last message it saw.
    case afterSequence(Int64)
    /// Messages accepted at or after this time (Unix seconds; ntfy's `since=<time>`).
    case since(Int64)
    /// Messages stored after the message with this id (ntfy's `since=<id>`), its sequence looked
    /// up in the same query. An id not stored (never, or pruned since) reads as ``all``: a
    /// distributor whose last message is gone gets everything still kept rather than nothing.
    case afterID(String)
}
