/// How an event's audience page reaches the rows of its members' subscribers and badges.
enum AudiencePageJoin: Sendable, Equatable {
    /// A primary-key lookup per member: the page costs the same whatever share of all
    /// subscribers the audience is.
    case keyLookups
    /// One index range of subscribers and one of badges, from the cursor on, merged with the
    /// page: no index descent per member, but the ranges hold every subscriber whose id lies
    /// between the page's first and last member, in the audience or not.
    case rangeMerge
}

/// Per publish job, the ``AudiencePageJoin`` of its next page, from the measured density of its
/// audience among all subscribers.
///
/// A merge reads every subscriber in the page's range of ids, so it pays only when most of them
/// are in the audience: on 100,000 subscribers all in the audience, a page of 1,000 with its
/// badge increments took 10.0–12.8 ms under pgbench instead of 12.5–14.1 by key lookups
/// (`EXPLAIN ANALYZE`: 12.9–13.8 against 15.6–16.6 ms, the lookups about 4 µs a member and a
/// range about 2.3 µs a row); for an event one subscriber in a hundred follows, the same merge
/// would read a hundred times the page. A job therefore starts with key lookups; after its first
/// full page, the store counts the subscribers in that page's range (``countCap(members:)`` at
/// most), and the job's later pages merge while the audience is at least two thirds of them
/// (``isDense(members:subscribersInRange:)``). While a job merges, the range is counted again
/// every ``recountInterval`` pages, so that a stretch of ids where the audience thins out is
/// merged for a few pages at most. A job found sparse keeps key lookups to its end: misjudging
/// it costs only the merge's saving.
///
/// A value type: the store keeps one behind a lock and acts on its answers outside it.
struct AudiencePageJoins: Sendable {
    /// The join of a job's next page, and whether to count its range after it.
    struct Choice: Sendable, Equatable {
        /// The join the page is read with.
        var join: AudiencePageJoin
        /// Whether the store counts the subscribers in the page's range after reading it (and
        /// then calls ``AudiencePageJoins/record(jobID:members:subscribersInRange:)``).
        var countsRange: Bool
    }

    private struct JobState {
        var join: AudiencePageJoin
        var pagesSinceCount: Int
    }

    /// Pages a merging job reads between two counts of its range.
    static let recountInterval = 16
    /// Jobs remembered at once; past it the memory starts over (each job then counts again),
    /// so that jobs a crashed worker never completed cannot accumulate.
    static let maximumJobs = 1024

    private var jobs: [Int64: JobState] = [:]

    /// The join of the job's next page.
    mutating func choice(forNextPageOf jobID: Int64) -> Choice {
        guard var state = jobs[jobID] else { return Choice(join: .keyLookups, countsRange: true) }
        guard state.join == .rangeMerge else { return Choice(join: .keyLookups, countsRange: false) }
        state.pagesSinceCount += 1
        jobs[jobID] = state
        return Choice(join: .rangeMerge, countsRange: state.pagesSinceCount >= Self.recountInterval)
    }

    /// Records the count of subscribers in the range of a full page of `members`, which decides
    /// the job's join until the next count.
    mutating func record(jobID: Int64, members: Int, subscribersInRange: Int) {
        if jobs[jobID] == nil, jobs.count >= Self.maximumJobs { jobs.removeAll() }
        let join: AudiencePageJoin = Self.isDense(members: members, subscribersInRange: subscribersInRange) ? .rangeMerge : .keyLookups
        jobs[jobID] = JobState(join: join, pagesSinceCount: 0)
    }

    /// Forgets a job that is complete.
    mutating func forget(jobID: Int64) {
        jobs[jobID] = nil
    }

    /// The join decided for the job, if it has been counted.
    func join(of jobID: Int64) -> AudiencePageJoin? {
        jobs[jobID]?.join
    }

    /// The most subscribers worth counting in a page's range: one more than a dense page's range
    /// can hold, so that a count never walks far into a sparse audience's range.
    static func countCap(members: Int) -> Int {
        members + members / 2 + 1
    }

    /// Whether a page's `members` are at least two thirds of the subscribers in its range: above
    /// about 0.6 (2.3 µs a range row against 4 µs a lookup) the merge is the cheaper, and the
    /// margin keeps a job near the threshold on lookups, whose cost never depends on the share.
    static func isDense(members: Int, subscribersInRange: Int) -> Bool {
        members > 0 && 2 * subscribersInRange <= 3 * members
    }
}
