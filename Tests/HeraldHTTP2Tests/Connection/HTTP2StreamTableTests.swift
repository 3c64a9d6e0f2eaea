import HeraldSimulators
import NIOHTTP2
import Testing

@testable import HeraldHTTP2

@Suite("HTTP2StreamTable")
struct HTTP2StreamTableTests {
    final class Stream {
        let id: Int
        init(_ id: Int) { self.id = id }
    }

    @Test("finds, replaces and removes streams by ID")
    func basics() {
        var table = HTTP2StreamTable<Stream>()
        #expect(table[HTTP2StreamID(1)] == nil)
        table.updateValue(Stream(1), forKey: HTTP2StreamID(1))
        table.updateValue(Stream(3), forKey: HTTP2StreamID(3))
        #expect(table.count == 2)
        #expect(table[HTTP2StreamID(3)]?.id == 3)
        let replacement = Stream(30)
        table.updateValue(replacement, forKey: HTTP2StreamID(3))
        #expect(table.count == 2)
        #expect(table[HTTP2StreamID(3)] === replacement)
        #expect(table.removeValue(forKey: HTTP2StreamID(1))?.id == 1)
        #expect(table.removeValue(forKey: HTTP2StreamID(1)) == nil)
        #expect(table[HTTP2StreamID(1)] == nil)
        #expect(table.values.map(\.id) == [30])
    }

    @Test("IDs that share a home slot stay reachable when one of them is removed")
    func collisions() {
        // 16 slots at first: IDs 1, 33, 65 and 97 all have home slot 0.
        var table = HTTP2StreamTable<Stream>()
        for id in [1, 33, 65, 3, 97] {
            table.updateValue(Stream(id), forKey: HTTP2StreamID(id))
        }
        table.removeValue(forKey: HTTP2StreamID(33))
        for id in [1, 65, 3, 97] {
            #expect(table[HTTP2StreamID(id)]?.id == id)
        }
        #expect(table[HTTP2StreamID(33)] == nil)
        table.removeValue(forKey: HTTP2StreamID(1))
        #expect(table[HTTP2StreamID(65)]?.id == 65)
        #expect(table[HTTP2StreamID(97)]?.id == 97)
        #expect(table[HTTP2StreamID(3)]?.id == 3)
        #expect(table.count == 3)
    }

    @Test("agrees with a dictionary over a long run of a connection's streams, stragglers included")
    func agreesWithDictionary() {
        var generator = SeededRandomNumberGenerator(seed: 42)
        var table = HTTP2StreamTable<Stream>(minimumCapacity: 8)
        var model: [Int: Stream] = [:]
        var nextID = 1
        for _ in 0..<50_000 {
            if model.count < 300, generator.next() % 3 != 0 {
                let stream = Stream(nextID)
                table.updateValue(stream, forKey: HTTP2StreamID(nextID))
                model[nextID] = stream
                // Skipped IDs happen when a request is cancelled while being dispatched.
                nextID += generator.next() % 10 == 0 ? 4 : 2
            } else if let victim = model.keys.randomElement(using: &generator) {
                #expect(table.removeValue(forKey: HTTP2StreamID(victim)) === model.removeValue(forKey: victim))
            }
            let probe = Int(generator.next() % UInt64(nextID + 1)) | 1
            #expect(table[HTTP2StreamID(probe)] === model[probe])
            #expect(table.count == model.count)
        }
        #expect(Set(table.values.map(\.id)) == Set(model.keys))
        for (id, stream) in model {
            #expect(table[HTTP2StreamID(id)] === stream)
        }
    }
}
