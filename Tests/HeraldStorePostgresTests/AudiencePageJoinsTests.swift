@testable import HeraldStorePostgres
import Testing

/// The choice of join for a job's audience pages, as a value: lookups until a count says the
/// audience is dense, merges then, counted again every few pages.
@Suite("PostgreSQL: audience page joins")
struct AudiencePageJoinsTests {
    @Test("a job starts with key lookups and counts the range of its first page")
    func firstPageCounts() {
        var joins = AudiencePageJoins()
        #expect(joins.choice(forNextPageOf: 7) == .init(join: .keyLookups, countsRange: true))
        #expect(joins.join(of: 7) == nil)
        // Until a count is recorded (a page that is not full records none), every page asks for one.
        #expect(joins.choice(forNextPageOf: 7) == .init(join: .keyLookups, countsRange: true))
    }

    @Test("a dense audience merges its later pages and is counted again every recountInterval pages")
    func denseMergesAndRecounts() {
        var joins = AudiencePageJoins()
        _ = joins.choice(forNextPageOf: 1)
        joins.record(jobID: 1, members: 1000, subscribersInRange: 1000)
        #expect(joins.join(of: 1) == .rangeMerge)
        let choices = (1...AudiencePageJoins.recountInterval).map { _ in joins.choice(forNextPageOf: 1) }
        #expect(choices.dropLast().allSatisfy { $0 == .init(join: .rangeMerge, countsRange: false) })
        #expect(choices.last == .init(join: .rangeMerge, countsRange: true))
        // The audience thinned out: the recount turns the job back to lookups, for good.
        joins.record(jobID: 1, members: 1000, subscribersInRange: AudiencePageJoins.countCap(members: 1000))
        #expect(joins.join(of: 1) == .keyLookups)
        #expect((0..<40).allSatisfy { _ in joins.choice(forNextPageOf: 1) == .init(join: .keyLookups, countsRange: false) })
    }

    @Test("two thirds of the range is the threshold, and the count's cap lies just past it")
    func threshold() {
        #expect(AudiencePageJoins.isDense(members: 1000, subscribersInRange: 1000))
        #expect(AudiencePageJoins.isDense(members: 1000, subscribersInRange: 1500))
        #expect(!AudiencePageJoins.isDense(members: 1000, subscribersInRange: 1501))
        #expect(!AudiencePageJoins.isDense(members: 0, subscribersInRange: 0))
        #expect(AudiencePageJoins.countCap(members: 1000) == 1501)
        #expect(!AudiencePageJoins.isDense(members: 1000, subscribersInRange: AudiencePageJoins.countCap(members: 1000)))
        #expect(AudiencePageJoins.isDense(members: 3, subscribersInRange: 4))
        #expect(!AudiencePageJoins.isDense(members: 3, subscribersInRange: AudiencePageJoins.countCap(members: 3)))
    }

    @Test("jobs are decided apart, forgotten when complete, and the memory starts over past maximumJobs")
    func jobsApartAndBounded() {
        var joins = AudiencePageJoins()
        joins.record(jobID: 1, members: 10, subscribersInRange: 10)
        joins.record(jobID: 2, members: 10, subscribersInRange: 100)
        #expect(joins.join(of: 1) == .rangeMerge)
        #expect(joins.join(of: 2) == .keyLookups)
        joins.forget(jobID: 1)
        #expect(joins.join(of: 1) == nil)
        #expect(joins.choice(forNextPageOf: 1).countsRange)
        for id in 100..<Int64(100 + AudiencePageJoins.maximumJobs) { joins.record(jobID: id, members: 10, subscribersInRange: 10) }
        #expect(joins.join(of: 2) == nil, "the memory started over")
        #expect(joins.join(of: Int64(99 + AudiencePageJoins.maximumJobs)) == .rangeMerge)
    }
}
