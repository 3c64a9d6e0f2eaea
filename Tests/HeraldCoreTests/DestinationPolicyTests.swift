import HeraldCore
import Testing

@Suite struct DestinationPolicyTests {
    private func policy(deny: [String], allow: [String] = []) -> DestinationPolicy {
        DestinationPolicy(deny: deny.map { AddressMatcher($0)! }, allow: allow.map { AddressMatcher($0)! })
    }

    @Test func theStandardPolicyDeniesMetadataLinkLocalAndUnspecifiedAddresses() {
        let standard = DestinationPolicy.standard
        for denied in ["169.254.169.254", "169.254.0.1", "fe80::1", "febf::ffff", "fd00:ec2::254", "0.0.0.0", "0.1.2.3", "::", "::ffff:169.254.169.254"] {
            #expect(!standard.permits(IPAddress(denied)!), "\(denied)")
        }
        for permitted in ["127.0.0.1", "10.0.0.1", "8.8.8.8", "::1", "2001:db8::1", "fd00:ec2::253", "169.255.0.1", "fec0::1"] {
            #expect(standard.permits(IPAddress(permitted)!), "\(permitted)")
        }
        #expect(!standard.permitsEverything)
    }

    @Test func anAllowListAdmitsOnlyItsBlocksAndDenyWins() {
        let policy = policy(deny: ["10.9.0.0/16"], allow: ["10.0.0.0/8", "2001:db8::/32"])
        #expect(policy.permits(IPAddress("10.1.2.3")!))
        #expect(policy.permits(IPAddress("::ffff:10.1.2.3")!))
        #expect(!policy.permits(IPAddress("10.9.1.1")!))
        #expect(!policy.permits(IPAddress("11.0.0.1")!))
        #expect(policy.permits(IPAddress("2001:db8:1::1")!))
        #expect(!policy.permits(IPAddress("2001:db9::1")!))
        #expect(self.policy(deny: []).permitsEverything)
    }

    @Test func onlyLiteralHostsAreJudgedAtRegistration() {
        let standard = DestinationPolicy.standard
        #expect(standard.refusedLiteralHost(inAuthority: "169.254.169.254") == "169.254.169.254")
        #expect(standard.refusedLiteralHost(inAuthority: "169.254.169.254:8080") == "169.254.169.254")
        #expect(standard.refusedLiteralHost(inAuthority: "[fe80::1]:443") == "fe80::1")
        #expect(standard.refusedLiteralHost(inAuthority: "[fe80::1]") == "fe80::1")
        #expect(standard.refusedLiteralHost(inAuthority: "metadata.google.internal") == nil)
        #expect(standard.refusedLiteralHost(inAuthority: "2852039166:80") == nil)  // not a dotted quad: a name, resolved later
        #expect(standard.refusedLiteralHost(inAuthority: "127.0.0.1:80") == nil)
    }

    @Test func sectionsReplaceOnlyTheListsTheySet() throws {
        let section = ConfigSection(path: "providers.http", values: ["deny": .list([]), "kind": .scalar("http")])
        let replaced = try section.destinationPolicy(replacing: .standard)
        #expect(replaced.deny.isEmpty)
        #expect(replaced.allow.isEmpty)
        let allowing = ConfigSection(path: "outbound", values: ["allow": .list([.scalar("192.168.0.0/16")])])
        let narrowed = try allowing.destinationPolicy(replacing: .standard)
        #expect(narrowed.deny == DestinationPolicy.standard.deny)
        #expect(narrowed.allow.map(\.description) == ["192.168.0.0/16"])
        let bad = ConfigSection(path: "outbound", values: ["deny": .list([.scalar("nope")])])
        #expect(throws: ConfigurationError.self) { try bad.destinationPolicy(replacing: .standard) }
    }
}
