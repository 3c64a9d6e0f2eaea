import Foundation
import Hummingbird
import HTTPTypes

extension WebPushSimulator {
    /// The most body bytes read at all; anything between ``Configuration/maximumBodyLength`` and this is read and
    /// answered `413`, beyond it the read stops.
    static let readLimit = 1 << 20

    /// The routes: the push endpoint and the two helpers for manual use.
    func makeRouter() -> Router<BasicRequestContext> {
        let router = Router()
        router.post("push/:id") { request, context -> Response in
            let id = context.parameters.get("id") ?? ""
            let body: [UInt8]?
            do {
                body = Array(try await request.body.collect(upTo: Self.readLimit).readableBytesView)
            } catch {
                body = nil
            }
            let headers = request.headers.map { (name: $0.name.canonicalName, value: $0.value) }
            let answer = await self.process(WebPushIncomingRequest(subscriptionID: id, headers: headers, body: body))
            return Self.response(status: answer.status, headers: answer.headers, body: answer.body)
        }
        router.post("subscriptions") { request, _ -> Response in
            let key = request.uri.queryParameters.get("applicationServerKey")
            do {
                let subscription = try self.makeSubscription(applicationServerKey: key)
                return Self.response(status: 201, headers: [(name: "Content-Type", value: "application/json")], body: subscription.json)
            } catch {
                return Self.response(status: 400, headers: [], body: "\(error)")
            }
        }
        router.get("subscriptions/:id/messages") { _, context -> Response in
            let id = context.parameters.get("id") ?? ""
            let known = self.state.withLock { $0.subscriptions[id] != nil }
            guard known else { return Self.response(status: 404, headers: [], body: "") }
            let texts = self.state.withLock { $0.accepted.filter { $0.subscriptionID == id }.map(\.text) }
            let json = "[" + texts.map(Self.jsonString).joined(separator: ",") + "]"
            return Self.response(status: 200, headers: [(name: "Content-Type", value: "application/json")], body: json)
        }
        return router
    }

    private static func response(status: Int, headers: [(name: String, value: String)], body: String) -> Response {
        var fields = HTTPFields()
        for header in headers {
            if let name = HTTPField.Name(header.name) { fields.append(HTTPField(name: name, value: header.value)) }
        }
        return Response(
            status: HTTPResponse.Status(code: status), headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    /// `text` as a JSON string literal (the decrypted messages are arbitrary text).
    private static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
