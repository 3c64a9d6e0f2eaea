import HeraldCore
import Testing

@Suite("Address matching (§2.3)")
struct AccessTests {
    @Test("addresses that parse, with their canonical form", arguments: [
        ("127.0.0.1", "127.0.0.1"), ("0.0.0.0", "0.0.0.0"), ("255.255.255.255", "255.255.255.255"),
        ("::", "::"), ("::1", "::1"), ("0:0:0:0:0:0:0:1", "::1"), ("2001:DB8:0:0:0:0:0:1", "2001:db8::1"),
        ("2001:db8::1", "2001:db8::1"), ("1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8"), ("1::", "1::"), ("1:2:3:4:5:6:7::", "1:2:3:4:5:6:7:0"),
        ("::2:3:4:5:6:7:8", "0:2:3:4:5:6:7:8"), ("1:0:0:1:0:0:0:1", "1:0:0:1::1"), ("1:0:1:0:1:0:1:0", "1:0:1:0:1:0:1:0"),
        ("1:0:0:2:0:0:3:4", "1::2:0:0:3:4"), ("FD00::ABCD", "fd00::abcd"), ("0001:02:003::", "1:2:3::"),
        ("::ffff:1.2.3.4", "::ffff:1.2.3.4"), ("::FFFF:102:304", "::ffff:1.2.3.4"), ("::1.2.3.4", "::102:304"),
        ("1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:102:304"), ("fe80::1%eth0", "fe80::1"), ("fe80::1%25", "fe80::1"),
    ])
    func parses(_ text: String, _ canonical: String) throws {
        let address = try #require(IPAddress(text))
        #expect(address.description == canonical)
        #expect(IPAddress(canonical) == address)
    }

    @Test("text that is not an address", arguments: [
        "", "1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "1.2.3.-4", "a.b.c.d", "1..2.3", " 1.2.3.4", "1.2.3.4 ", "localhost",
        ":::", "1::2::3", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7:8::", "::1:2:3:4:5:6:7:8", "12345::", "::g", "1.2.3.4::",
        "::1.2.3", ":1::", "1:", ":1", "1:2:3:4:5:6:7", "fe80::1%", "::ffff:1.2.3.4:1", "1:2:3:4:5:6:7:1.2.3.4", "[::1]", "::ffff:01.2.3.4",
    ])
    func rejects(_ text: String) {
        #expect(IPAddress(text) == nil)
    }

    @Test("families and mapping")
    func families() throws {
        let v4 = try #require(IPAddress("1.2.3.4"))
        let mapped = try #require(IPAddress("::ffff:1.2.3.4"))
        #expect(v4.isIPv4)
        #expect(!mapped.isIPv4)
        #expect(mapped.isIPv4Mapped)
        #expect(mapped != v4)
        #expect(mapped.unmapped == v4)
        #expect(v4.unmapped == v4)
        #expect(IPAddress("::1")?.unmapped == IPAddress("::1"))
        #expect(IPAddress("::1") != IPAddress("0.0.0.1"))
    }

    @Test("entries against addresses", arguments: [
        ("127.0.0.1", "127.0.0.1", true), ("127.0.0.1", "127.0.0.2", false),
        ("10.0.0.0/8", "10.255.1.2", true), ("10.0.0.0/8", "11.0.0.1", false), ("10.0.0.0/8", "9.255.255.255", false),
        ("192.168.1.0/24", "192.168.1.77", true), ("192.168.1.0/24", "192.168.2.1", false),
        ("192.168.1.128/25", "192.168.1.200", true), ("192.168.1.128/25", "192.168.1.127", false),
        ("0.0.0.0/0", "8.8.8.8", true), ("10.1.2.3/8", "10.9.9.9", true), ("1.2.3.4/32", "1.2.3.4", true), ("1.2.3.4/31", "1.2.3.5", true),
        ("::1", "::1", true), ("::1", "127.0.0.1", false), ("127.0.0.1", "::1", false), ("::1", "::2", false),
        ("fd00::/8", "fd12:3456::1", true), ("fd00::/8", "fe80::1", false),
        ("2001:db8::/32", "2001:db8:ffff::1", true), ("2001:db8::/32", "2001:db9::1", false),
        ("2001:db8::/127", "2001:db8::1", true), ("2001:db8::/127", "2001:db8::2", false),
        ("2001:db8:0:0:8000::/65", "2001:db8::ffff:0:0:1", true), ("2001:db8:0:0:8000::/65", "2001:db8::7fff:0:0:1", false),
        ("2001:db8::/64", "2001:db8::ffff:ffff:ffff:ffff", true), ("2001:db8::/64", "2001:db8:0:1::", false),
        ("::/0", "2001:db8::1", true), ("::/0", "1.2.3.4", false), ("0.0.0.0/0", "::1", false),
        // IPv4-mapped sources match as IPv4 (§2.3)
        ("127.0.0.1", "::ffff:127.0.0.1", true), ("10.0.0.0/8", "::ffff:10.1.2.3", true), ("10.0.0.0/8", "::ffff:11.1.2.3", false),
        ("::/0", "::ffff:1.2.3.4", true),
        // entries written as mapped addresses are the IPv4 blocks they map
        ("::ffff:127.0.0.1", "127.0.0.1", true), ("::ffff:10.0.0.0/104", "10.2.3.4", true), ("::ffff:10.0.0.0/104", "11.2.3.4", false),
        ("::ffff:127.0.0.1", "::ffff:127.0.0.1", true),
        // zone ids on the source side are tolerated
        ("fe80::/10", "fe80::1%eth0", true), ("fe80::1", "fe80::1%en0", true),
    ])
    func matching(_ entry: String, _ address: String, _ expected: Bool) throws {
        let matcher = try #require(AddressMatcher(entry))
        let source = try #require(IPAddress(address))
        #expect(matcher.matches(source) == expected)
    }

    @Test("entries that do not parse", arguments: [
        "", "10.0.0.0/33", "::/129", "10.0.0.0/", "/8", "10.0.0.0/-1", "10.0.0.0/+8", "10.0.0.0/8/8", "10.0.0.0/08x", "10.0.0.0/0008",
        "fe80::1%eth0", "localhost", "10.0.0.0 /8", "10.0.0/8", "*", "10.0.0.0/a",
    ])
    func badEntries(_ entry: String) {
        #expect(AddressMatcher(entry) == nil)
    }

    @Test("entries are normalized to their network")
    func entryDescription() {
        #expect(AddressMatcher("10.1.2.3/8")?.description == "10.0.0.0/8")
        #expect(AddressMatcher("::1")?.description == "::1/128")
        #expect(AddressMatcher("127.0.0.1")?.prefixLength == 32)
        #expect(AddressMatcher("::ffff:10.0.0.0/104")?.description == "10.0.0.0/8")
        #expect(AddressMatcher("2001:db8::ffff/48")?.description == "2001:db8::/48")
    }

    @Test("the configuration example list")
    func accessList() throws {
        let list = try AccessList(["127.0.0.1", "::1", "10.0.0.0/8", " fd00::/8 "], key: "server.acl.publish")
        #expect(list.matchers.count == 4)
        for allowed in ["127.0.0.1", "::1", "10.20.30.40", "::ffff:10.0.0.1", "::ffff:127.0.0.1", "fd00::5"] {
            #expect(list.allows(try #require(IPAddress(allowed))), "\(allowed)")
        }
        for refused in ["127.0.0.2", "192.168.0.1", "::2", "fe80::1", "::ffff:192.168.0.1"] {
            #expect(!list.allows(try #require(IPAddress(refused))), "\(refused)")
        }
    }

    @Test("§16 item 25: acl publish [::1] admits ::1 and refuses 127.0.0.1")
    func acceptanceItem25() throws {
        let list = try AccessList(["::1"], key: "server.acl.publish")
        #expect(list.allows(try #require(IPAddress("::1"))))
        #expect(!list.allows(try #require(IPAddress("127.0.0.1"))))
        #expect(!list.allows(try #require(IPAddress("::ffff:127.0.0.1"))))
    }

    @Test("an empty list admits nobody")
    func emptyList() throws {
        let list = try AccessList([], key: "server.acl.listen")
        #expect(!list.allows(try #require(IPAddress("127.0.0.1"))))
    }

    @Test("a bad entry is a configuration error naming the key")
    func badEntryError() {
        #expect(throws: ConfigurationError(key: "server.acl.publish", "invalid address or CIDR block \"10.0.0.0/33\"")) {
            try AccessList(["127.0.0.1", "10.0.0.0/33", "nonsense"], key: "server.acl.publish")
        }
        let error = ConfigurationError(key: "server.acl.admin", "invalid address or CIDR block \"x\"")
        #expect(error.description == "server.acl.admin: invalid address or CIDR block \"x\"")
    }
}
