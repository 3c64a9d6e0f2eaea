import HeraldCore
import Testing

@testable import HeraldIntake

/// `at` and `delay`: when a publish is due, and what is refused (issue 19).
@Suite struct PublishScheduleTests {
    let now: Int64 = 1_795_000_000
    let ahead = Duration.seconds(2_592_000)

    func payload(_ members: [(String, BodyValue)]) -> BodyValue {
        .object([("msg", .string("hi"))] + members.map { (key: $0.0, value: $0.1) })
    }

    func due(_ members: [(String, BodyValue)]) throws -> Int64? {
        try PublishSchedule.extract(from: payload(members), now: now, maxAhead: ahead).0?.dueAt
    }

    @Test func delayAndAtInEveryFormTheyComeIn() throws {
        #expect(try due([("delay", .string("60"))]) == now + 60)
        #expect(try due([("delay", .number("60"))]) == now + 60)
        #expect(try due([("delay", .number("60.0"))]) == now + 60, "JSON Schema's integer")
        #expect(try due([("at", .string("\(now + 10)"))]) == now + 10)
        #expect(try due([("at", .number("\(now + 10)"))]) == now + 10)
        #expect(try due([("at", .string("2026-11-18T20:27:00Z"))]) == 1_795_033_620)
        #expect(try due([("at", .string("2026-11-18T20:27:00.250+01:00"))]) == 1_795_030_021, "a fraction rounds up")
        #expect(try due([("delay", .string("2592000"))]) == now + 2_592_000, "exactly max_schedule_ahead")
    }

    @Test func everyRFC3339TimeIsReadWithItsOffset() throws {
        // Lower-case letters and offsets beyond Foundation's ±18 hours are RFC 3339's too.
        #expect(try due([("at", .string("2026-11-18t20:27:00z"))]) == 1_795_033_620)
        #expect(try due([("at", .string("2026-11-19T19:46:00+23:19"))]) == 1_795_033_620)
        #expect(try due([("at", .string("2026-11-17T21:08:00-23:19"))]) == 1_795_033_620)
        let ancient = try #require(PublishSchedule.rfc3339Seconds("0043-08-11T01:46:15.0+23:19"), "as schemathesis sent it")
        #expect(ancient < -60_000_000_000, "a time long past")
        #expect(PublishSchedule.rfc3339Seconds("2026-11-18T20:27:00+24:00") == nil, "hours of an offset stop at 23")
        #expect(PublishSchedule.rfc3339Seconds("2026-11-18T20:27:00+0100") == nil, "the offset needs its colon")
        #expect(PublishSchedule.rfc3339Seconds("2026-11-18T20:27:00") == nil, "an offset is required")
    }

    @Test func aTimeInThePastOrNoDelayPublishesAtOnceAndTheKeysLeaveThePayload() throws {
        #expect(try due([("at", .string("1"))]) == nil)
        #expect(try due([("delay", .number("0"))]) == nil)
        let (schedule, rest) = try PublishSchedule.extract(from: payload([("delay", .string("5"))]), now: now, maxAhead: ahead)
        #expect(schedule?.dueAt == now + 5)
        #expect(rest == payload([]))
    }

    @Test(arguments: [
        [("delay", BodyValue.string("1.5"))], [("delay", .number("1.5"))], [("delay", .number("-1"))], [("delay", .string(""))],
        [("delay", .bool(true))], [("delay", .null)], [("at", .string("tomorrow"))], [("at", .bool(false))],
        [("delay", .string("2592001"))], [("at", .string("2030-01-01T00:00:00Z"))], [("at", .string("1")), ("delay", .string("1"))],
    ])
    func refused(_ members: [(String, BodyValue)]) {
        #expect(throws: IntakeError.self) { try due(members) }
    }
}
