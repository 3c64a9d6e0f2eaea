import NIOCore
import NIOHPACK

/// An answer that ``SimulatorHTTP2StreamHandler`` can put on the wire: a HEADERS frame, then a DATA frame when there
/// is a body.
protocol SimulatorHTTP2Response {
    /// The HEADERS frame's header list, `:status` first.
    var headerBlock: HPACKHeaders { get }

    /// The DATA frame's payload; `nil` ends the stream with the HEADERS frame.
    func body(allocator: ByteBufferAllocator) -> ByteBuffer?
}
