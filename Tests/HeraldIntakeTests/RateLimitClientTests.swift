import HeraldCore
import HeraldIntake
import Testing

/// Who a request counts against.
@Suite struct RateLimitClientTests {
    @Test func anIPv6ClientIsKeyedByItsSlash64() {
        let one = RateLimitClient(address: "2001:db8:1:2::1")
        #expect(RateLimitClient(address: "2001:db8:1:2:ffff:ffff:ffff:ffff") == one)
        #expect(RateLimitClient(address: "2001:DB8:1:2:a:b:c:d") == one)
        #expect(RateLimitClient(address: "fe80::1%eth0") == RateLimitClient(address: "fe80::2"), "the zone id is dropped")
        #expect(RateLimitClient(address: "2001:db8:1:3::1") != one, "the next /64 is another client")
        #expect(one == .network(IPAddress("2001:db8:1:2::")!))
    }

    @Test func anIPv4ClientIsKeyedByItsWholeAddress() {
        #expect(RateLimitClient(address: "10.0.0.1") == .network(IPAddress("10.0.0.1")!))
        #expect(RateLimitClient(address: "10.0.0.2") != RateLimitClient(address: "10.0.0.1"))
        #expect(RateLimitClient(address: "::ffff:10.0.0.1") == RateLimitClient(address: "10.0.0.1"), "a mapped address is its IPv4 client")
    }

    @Test func sourcesWithoutAnIPAddressShareOneBucket() {
        #expect(RateLimitClient(address: nil) == .unidentified)
        #expect(RateLimitClient(address: "/tmp/herald.sock") == .unidentified)
    }

    @Test func aUserIsNotAnAddress() {
        #expect(RateLimitClient.user("10.0.0.1") != RateLimitClient(address: "10.0.0.1"))
    }

    @Test func networksOfOtherPrefixLengths() {
        let address = IPAddress("2001:db8:aaaa:bbbb:cccc:dddd:eeee:ffff")!
        #expect(address.network(prefixLength: 48) == IPAddress("2001:db8:aaaa::"))
        #expect(address.network(prefixLength: 100) == IPAddress("2001:db8:aaaa:bbbb:cccc:dddd:e000:0"))
        #expect(address.network(prefixLength: 128) == address)
        #expect(address.network(prefixLength: 0) == IPAddress("::"))
        #expect(IPAddress("192.168.37.5")!.network(prefixLength: 20) == IPAddress("192.168.32.0"))
    }
}
