import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// One browser session of the W3C WebDriver protocol (as `chromedriver` speaks it), with the few
/// commands the page tests need.
public struct WebDriverSession: Sendable {
    /// The browser `chromedriver` starts.
    static let chromium = "/usr/bin/chromium"
    /// The key under which WebDriver answers an element reference.
    private static let elementKey = "element-6066-11e4-a52e-4f735466cecf"

    /// The session's URL: `<driver>/session/<id>`.
    public let url: String

    static func create(driver: String, width: Int, height: Int) async throws -> WebDriverSession {
        let capabilities: [String: Any] = [
            "capabilities": [
                "alwaysMatch": [
                    "browserName": "chrome",
                    "goog:chromeOptions": [
                        "binary": chromium,
                        // Root in a container: no sandbox; no GPU; /dev/shm may be tiny.
                        "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=\(width),\(height)"],
                    ] as [String: Any],
                    "goog:loggingPrefs": ["browser": "ALL"] as [String: Any],
                ] as [String: Any]
            ] as [String: Any]
        ]
        let answer = try await call(.POST, driver + "/session", body: capabilities, timeout: .seconds(60))
        guard let value = answer["value"] as? [String: Any], let id = value["sessionId"] as? String else {
            throw WebDriverError(message: "no session in \(answer)")
        }
        return WebDriverSession(url: driver + "/session/" + id)
    }

    /// Loads `address` and waits until the document has loaded.
    public func navigate(to address: String) async throws {
        _ = try await Self.call(.POST, url + "/url", body: ["url": address], timeout: .seconds(60))
    }

    /// Runs `script` (a function body; `arguments[0]`… are `arguments`) and returns what it returns.
    public func execute(_ script: String, _ arguments: [Any] = []) async throws -> Any? {
        let answer = try await Self.call(.POST, url + "/execute/sync", body: ["script": script, "args": arguments])
        return answer["value"].flatMap { $0 is NSNull ? nil : $0 }
    }

    /// The text of the first element matching the CSS `selector`, or `nil` when none does.
    public func text(of selector: String) async throws -> String? {
        try await execute("const e = document.querySelector(arguments[0]); return e ? e.textContent : null;", [selector]) as? String
    }

    /// Clicks the first element matching the CSS `selector`, as a user would (WebDriver's element click).
    public func click(_ selector: String) async throws {
        let found = try await Self.call(.POST, url + "/element", body: ["using": "css selector", "value": selector])
        guard let element = (found["value"] as? [String: Any])?[Self.elementKey] as? String else {
            throw WebDriverError(message: "no element \(selector)")
        }
        _ = try await Self.call(.POST, url + "/element/\(element)/click", body: [:])
    }

    /// Types `text` into the first element matching the CSS `selector`.
    public func type(_ text: String, into selector: String) async throws {
        let found = try await Self.call(.POST, url + "/element", body: ["using": "css selector", "value": selector])
        guard let element = (found["value"] as? [String: Any])?[Self.elementKey] as? String else {
            throw WebDriverError(message: "no element \(selector)")
        }
        _ = try await Self.call(.POST, url + "/element/\(element)/value", body: ["text": text])
    }

    /// The browser's console and network messages since the last call: `(level, message)`.
    public func browserLog() async throws -> [(level: String, message: String)] {
        let answer = try await Self.call(.POST, url + "/se/log", body: ["type": "browser"])
        let entries = answer["value"] as? [[String: Any]] ?? []
        return entries.map { (($0["level"] as? String) ?? "", ($0["message"] as? String) ?? "") }
    }

    /// A PNG of the viewport.
    public func screenshot() async throws -> Data {
        let answer = try await Self.call(.GET, url + "/screenshot")
        guard let text = answer["value"] as? String, let data = Data(base64Encoded: text) else {
            throw WebDriverError(message: "no screenshot")
        }
        return data
    }

    /// Closes the browser.
    public func close() async {
        _ = try? await Self.call(.DELETE, url)
    }

    /// Sends one command and returns the decoded answer; a WebDriver error becomes ``WebDriverError``.
    static func call(_ method: HTTPMethod, _ address: String, body: [String: Any]? = nil, timeout: TimeAmount = .seconds(30)) async throws -> [String: Any] {
        var request = HTTPClientRequest(url: address)
        request.method = method
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: timeout)
        let bytes = try await response.body.collect(upTo: 1 << 26)
        let object = (try? JSONSerialization.jsonObject(with: Data(bytes.readableBytesView))) as? [String: Any] ?? [:]
        guard response.status == .ok else {
            let value = object["value"] as? [String: Any]
            throw WebDriverError(message: "\(method) \(address): \(response.status.code) \(value?["error"] ?? "") \(value?["message"] ?? String(buffer: bytes))")
        }
        return object
    }
}
