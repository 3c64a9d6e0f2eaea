import HeraldCore
import Testing

@Suite("Destination host")
struct DestinationHostTests {
    @Test(
        "the authority of a URL, lower-cased, without user information",
        arguments: [
            ("https://Hooks.Example.com:8443/path?x=1", "hooks.example.com:8443"),
            ("http://user:secret@Host.example/x", "host.example"),
            ("http://a@b@c.example/", "c.example"),
            ("http://[::1]:8080/", "[::1]:8080"),
            ("https://host.example?q=1", "host.example"),
            ("https://host.example#fragment", "host.example"),
            ("https://host.example", "host.example"),
            ("https://ÄPFEL.example/", "äpfel.example"),
            ("wss://10.0.0.1", "10.0.0.1"),
        ])
    func authority(url: String, host: String) {
        #expect(DestinationHost.of(url) == host)
    }

    @Test("no host without scheme://authority", arguments: ["host.example/path", "http:/x", "http:///path", "http://user@/x", "", "://"])
    func noAuthority(url: String) {
        #expect(DestinationHost.of(url) == nil)
    }
}
