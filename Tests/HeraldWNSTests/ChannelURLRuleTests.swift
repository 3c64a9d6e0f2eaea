import HeraldWNS
import Testing

/// Token validation of pushd-api.md §9 for `wns` and `mpns`.
@Suite struct ChannelURLRuleTests {
    let wns = ChannelURLRule(serviceDomain: "notify.windows.com")

    @Test(arguments: [
        "https://dm3p.notify.windows.com/?token=AwYAAAB%2bXyz",
        "http://db5.notify.windows.com/",
        "https://a-b.c.notify.windows.com/?token=" + String(repeating: "x", count: 492),
    ])
    func serviceChannelsAreAccepted(_ uri: String) {
        #expect(wns.accepts(uri))
    }

    @Test(arguments: [
        "https://notify.windows.com/?token=x",  // nothing before the domain
        "https://dm3p.notify.windows.com.evil.example/?token=x",
        "https://dm3p.notify.windows.com:443/?token=x",  // the pattern has no port
        "ftp://dm3p.notify.windows.com/?token=x",
        "https://dm3p.notify.windows.com",  // no path
        "https://dm3p.notify.windows.com/?token=a b",
        "https://dm3p_x.notify.windows.com/?token=x",
        "HTTPS://dm3p.notify.windows.com/?token=x",
        "https://dm3p.notify.windows.com/" + String(repeating: "x", count: 501),
        "https://dm3p.notify.live.net/?token=x",
    ])
    func othersAreRefused(_ uri: String) {
        #expect(!wns.accepts(uri))
    }

    @Test func theConfiguredOriginIsAcceptedOnItsHostAndPortOnly() throws {
        let origin = try #require(ChannelOrigin(url: "https://127.0.0.1:9445/accesstoken.srf"))
        let rule = ChannelURLRule(serviceDomain: "notify.windows.com", alternateOrigin: origin)
        #expect(rule.accepts("https://127.0.0.1:9445/?token=abc"))
        #expect(rule.accepts("http://127.0.0.1:9445/channels/abc"))
        #expect(!rule.accepts("https://127.0.0.1:9446/?token=abc"))
        #expect(!rule.accepts("https://127.0.0.2:9445/?token=abc"))
        #expect(!rule.accepts("https://user@127.0.0.1:9445/?token=abc"))
        #expect(rule.accepts("https://dm3p.notify.windows.com/?token=x"))
    }

    @Test func defaultPortsAreEqualToExplicitOnes() throws {
        let origin = try #require(ChannelOrigin(url: "https://wns-proxy.example/accesstoken.srf"))
        #expect(origin == ChannelOrigin(host: "WNS-proxy.example", port: 443))
        let rule = ChannelURLRule(serviceDomain: "notify.live.net", alternateOrigin: origin)
        #expect(rule.accepts("https://wns-proxy.example:443/x"))
        #expect(!rule.accepts("http://wns-proxy.example/x"))
    }

    @Test func ipv6OriginsAreParsed() throws {
        let origin = try #require(ChannelOrigin(url: "https://[::1]:8443/token"))
        #expect(origin.host == "::1")
        #expect(origin.port == 8443)
        #expect(ChannelOrigin(url: "https://[::1/token") == nil)
        #expect(ChannelOrigin(url: "https://host:99999/") == nil)
    }
}
