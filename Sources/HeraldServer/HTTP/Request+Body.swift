import Hummingbird
import NIOCore

extension Request {
    /// The whole body, refused with `413 {"error":"Request body too large"}` past `limit` bytes
    /// (1 MiB by default, as rs/pushd).
    public func collectBody(upTo limit: Int = PushdRoutes.maxBodySize) async throws(APIError) -> ByteBuffer {
        do {
            return try await body.collect(upTo: limit)
        } catch {
            throw .bodyTooLarge
        }
    }
}
