import NIOHTTP2

/// The open streams of one connection by stream ID, in an open-addressing table.
///
/// The connection looks a stream up for every frame and event it receives, and adds and removes
/// one per request: a `Dictionary` would run SipHash for each of those. Client stream IDs are odd
/// and increasing, so `id >> 1` masked to the table's size puts the streams in flight, a window of
/// recent IDs, in distinct slots without hashing. Collisions (a stream outliving many newer ones)
/// probe linearly; removal shifts the rest of a probe run back, so no tombstones build up.
/// The table stays at most half full.
struct HTTP2StreamTable<Value: AnyObject> {
    private var slots: [(id: Int32, value: Value)?]
    private var mask: Int

    /// The number of streams in the table.
    private(set) var count = 0

    /// Creates an empty table sized for `minimumCapacity` streams before it grows.
    init(minimumCapacity: Int = 16) {
        var size = 16
        while size < minimumCapacity * 2 {
            size <<= 1
        }
        self.slots = Array(repeating: nil, count: size)
        self.mask = size - 1
    }

    /// The stream stored under `id`, if any.
    subscript(id: HTTP2StreamID) -> Value? {
        let key = Int32(id)
        var index = self.home(of: key)
        while let slot = self.slots[index] {
            if slot.id == key {
                return slot.value
            }
            index = (index + 1) & self.mask
        }
        return nil
    }

    /// Every stream in the table, in no particular order.
    var values: [Value] {
        self.slots.compactMap { $0?.value }
    }

    /// Stores `value` under `id`, replacing the value stored under it before.
    mutating func updateValue(_ value: Value, forKey id: HTTP2StreamID) {
        if (self.count + 1) * 2 > self.slots.count {
            self.grow()
        }
        self.store(value, forKey: Int32(id))
    }

    /// Removes the value stored under `id`.
    ///
    /// - Returns: The removed value, or `nil` if there was none.
    @discardableResult
    mutating func removeValue(forKey id: HTTP2StreamID) -> Value? {
        let key = Int32(id)
        var index = self.home(of: key)
        while let slot = self.slots[index] {
            if slot.id == key {
                self.slots[index] = nil
                self.count -= 1
                self.closeGap(at: index)
                return slot.value
            }
            index = (index + 1) & self.mask
        }
        return nil
    }

    private func home(of key: Int32) -> Int {
        Int(key >> 1) & self.mask
    }

    private mutating func store(_ value: Value, forKey key: Int32) {
        var index = self.home(of: key)
        while let slot = self.slots[index] {
            if slot.id == key {
                self.slots[index] = (key, value)
                return
            }
            index = (index + 1) & self.mask
        }
        self.slots[index] = (key, value)
        self.count += 1
    }

    /// Moves entries that probed past the emptied slot `gap` back towards their home slots, so
    /// that every entry stays reachable from its home without crossing an empty slot.
    private mutating func closeGap(at gap: Int) {
        var gap = gap
        var index = (gap + 1) & self.mask
        while let entry = self.slots[index] {
            // The entry may fill the gap if its home is not cyclically after the gap, that is, if
            // it is at least as far from its home as from the gap.
            let fromHome = (index - self.home(of: entry.id)) & self.mask
            let fromGap = (index - gap) & self.mask
            if fromHome >= fromGap {
                self.slots[gap] = entry
                self.slots[index] = nil
                gap = index
            }
            index = (index + 1) & self.mask
        }
    }

    private mutating func grow() {
        let old = self.slots
        self.slots = Array(repeating: nil, count: old.count * 2)
        self.mask = self.slots.count - 1
        self.count = 0
        for case let (key, value)? in old {
            self.store(value, forKey: key)
        }
    }
}
