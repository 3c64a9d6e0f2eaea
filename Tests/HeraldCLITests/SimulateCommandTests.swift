import AsyncHTTPClient
import Foundation
import HeraldTestSupport
import NIOCore
import Testing

/// `herald simulate --config-out`: the whole system on one machine, as the README shows it.
@Suite(.serialized) struct SimulateCommandTests {
    func post(_ url: String, form: String? = nil, json: String? = nil) async throws -> (status: Int, body: String) {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        if let form {
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: form))
        } else if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: json))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), String(buffer: body))
    }

    static func formEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }

    @Test func everySimulatedKindReceivesABroadcast() async throws {
        let server = try await SimulatedServer.start(
            ["--apns-port", "0", "--fcm-port", "0", "--web-push-port", "0", "--wns-port", "0", "--mpns-port", "0",
             "--gcm-legacy-port", "0"])
        let (directory, simulate, base) = (server.directory, server.simulate, server.base)
        defer { simulate.signal(SIGTERM) }
        let apnsToken = String(repeating: "ab", count: 32)
        #expect(try await post(base + "/subscribers", form: "proto=apns&token=\(apnsToken)").status == 201)
        #expect(try await post(base + "/subscribers", form: "proto=gcm&token=\(String(repeating: "f", count: 64))").status == 201)
        let subscription = try String(contentsOfFile: directory + "/sim/webpush-subscription.json", encoding: .utf8)
        let webPush = try await post(base + "/subscribers", json: #"{"proto":"webpush","token":\#(subscription)}"#)
        #expect(webPush.status == 201, "\(webPush.body)")
        let wnsChannel = try String(contentsOfFile: directory + "/sim/wns-channel.txt", encoding: .utf8)
        let wns = try await post(base + "/subscribers", form: "proto=wns-toast&token=\(Self.formEncoded(wnsChannel))")
        #expect(wns.status == 201, "\(wns.body)")
        let mpnsChannel = try String(contentsOfFile: directory + "/sim/mpns-channel.txt", encoding: .utf8)
        let mpns = try await post(base + "/subscribers", form: "proto=mpns-toast&token=\(Self.formEncoded(mpnsChannel))")
        #expect(mpns.status == 201, "\(mpns.body)")
        #expect(try await post(base + "/subscribers", form: "proto=gcm-legacy&token=\(String(repeating: "e", count: 64))").status == 201)

        #expect(try await post(base + "/event/broadcast", form: "msg=Hello+from+every+service").status == 204)
        try await eventually(limit: .seconds(60)) {
            simulate.log.contains(
                "apns: 1 accepted of 1, fcm: 1 accepted of 1, webpush: 1 accepted of 1, wns: 1 accepted of 1, "
                    + "mpns: 1 accepted of 1, gcm-legacy: 1 delivered in 1 requests")
        }
        #expect(await server.stop())
    }
}
