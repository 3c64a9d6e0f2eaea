import HeraldCore
import HeraldStore
import HeraldStorePostgres
import Testing

/// The PostgreSQL group commit through the store's public interface: concurrent registrations
/// share a statement, and one the server refuses fails alone (issue 44).
@Suite("PostgreSQL: group commit")
struct PostgresGroupCommitTests {
    /// A registration of a webhook `n`, with `category`.
    private static func registration(_ n: Int, category: String? = nil) -> SubscriberRegistration {
        let token = "https://hooks.example.com/group/\(n)"
        return SubscriberRegistration(proto: "http", token: token, fields: SubscriberFields(category: category))
    }

    @Test("a registration the server refuses (a NUL character) fails alone; its batch-mates commit")
    func aRefusedRegistrationFailsAlone() async throws {
        try await PostgresTestStores.with { store in
            let outcomes = await withTaskGroup(of: (Int, Bool).self) { group in
                for n in 0..<120 {
                    // Every tenth one carries a NUL, which PostgreSQL refuses in text.
                    let registration = Self.registration(n, category: n % 10 == 5 ? "a\u{0}b" : "c\(n)")
                    group.addTask {
                        do {
                            _ = try await store.register(registration, now: 1_700_000_000)
                            return (n, true)
                        } catch {
                            return (n, false)
                        }
                    }
                }
                var outcomes: [Int: Bool] = [:]
                for await (n, succeeded) in group { outcomes[n] = succeeded }
                return outcomes
            }
            for n in 0..<120 {
                #expect(outcomes[n] == (n % 10 != 5), "registration \(n)")
                let stored = try await store.subscriber(proto: "http", identity: Self.registration(n).identity)
                #expect((stored != nil) == (n % 10 != 5), "registration \(n) stored")
                if let stored { #expect(stored.fields.category == "c\(n)") }
            }
            #expect(try await store.counts().subscribers == 108)
        }
    }
}
