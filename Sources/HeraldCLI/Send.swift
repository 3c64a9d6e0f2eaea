import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore

/// `herald send EVENT key=value...`: publishes an event to a running server.
struct Send: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Publish an event to a running Herald server.",
        discussion: "Example: herald send sport msg='Goal!' title.fr='But !' data.match=42"
    )

    @Argument(help: "The event name (or broadcast, unicast:<subscriber id>).")
    var event: String

    @Argument(help: "Payload keys as key=value (title, msg, msg.<lang>, data.<key>, var.<key>, sound, badge, ...).")
    var fields: [String] = []

    @Option(name: .long, help: "The server's base URL; user:password@ in it is sent as Basic authentication.")
    var server: String = "http://127.0.0.1:8080"

    func run() async throws {
        var form: [String] = []
        for field in fields {
            guard let equals = field.firstIndex(of: "=") else {
                throw ValidationError("'\(field)' is not key=value")
            }
            form.append(Self.formEncode(String(field[..<equals])) + "=" + Self.formEncode(String(field[field.index(after: equals)...])))
        }
        guard var components = URLComponents(string: server), components.host != nil else {
            throw ValidationError("--server '\(server)' is not a URL")
        }
        let user = components.user
        let password = components.password
        components.user = nil
        components.password = nil
        let eventPath = event.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? event
        let base = components.string.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 } ?? server

        var request = HTTPClientRequest(url: "\(base)/event/\(eventPath)")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        if let user {
            let credentials = Data("\(user):\(password ?? "")".utf8).base64EncodedString()
            request.headers.add(name: "Authorization", value: "Basic \(credentials)")
        }
        request.body = .bytes(ByteBuffer(string: form.joined(separator: "&")))

        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        do {
            let response = try await client.execute(request, timeout: .seconds(30))
            let body = try await response.body.collect(upTo: 1 << 20)
            try await client.shutdown()
            guard response.status.code == 204 else {
                let text = String(buffer: body)
                FileHandle.standardError.write(Data("herald: \(response.status.code) \(text)\n".utf8))
                throw ExitCode(1)
            }
        } catch let error as ExitCode {
            throw error
        } catch {
            try? await client.shutdown()
            FileHandle.standardError.write(Data("herald: cannot reach \(base): \(error)\n".utf8))
            throw ExitCode(1)
        }
    }

    /// Form-encodes like a browser: unreserved characters as they are, space as `+`, the rest `%XX`.
    static func formEncode(_ text: String) -> String {
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._*")
        return (text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text).replacingOccurrences(of: "%20", with: "+")
    }
}
