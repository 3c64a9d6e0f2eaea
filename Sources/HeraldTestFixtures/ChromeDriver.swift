import Foundation

/// Debian's `chromedriver` (package `chromium-driver`) on a free loopback port, driving headless
/// `chromium`, for the tests of pages Herald serves. `scripts/bootstrap --test` installs both.
// `@unchecked Sendable`: after `start` the process is only read (`isRunning`) and killed, which Foundation's
// `Process` does under its own lock (as `RedisTestServer` relies on); every other property is immutable.
public final class ChromeDriver: @unchecked Sendable {
    /// Where its WebDriver API listens: `http://127.0.0.1:<port>`.
    public let baseURL: String
    private let process: Process

    private init(baseURL: String, process: Process) {
        self.baseURL = baseURL
        self.process = process
    }

    /// Starts `chromedriver` and waits until its `/status` says it is ready.
    public static func start() async throws -> ChromeDriver {
        guard let executable = ["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"].first(where: FileManager.default.isExecutableFile(atPath:)),
            FileManager.default.isExecutableFile(atPath: WebDriverSession.chromium)
        else { throw WebDriverError(message: "chromium or chromedriver is missing (Debian: apt-get install chromium chromium-driver; scripts/bootstrap --test)") }
        let port = try HeraldProcess.freePort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--port=\(port)", "--allowed-ips=127.0.0.1"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let driver = ChromeDriver(baseURL: "http://127.0.0.1:\(port)", process: process)
        do {
            try await eventually(limit: .seconds(30)) {
                guard process.isRunning else { throw WebDriverError(message: "chromedriver exited at start") }
                let status = try? await WebDriverSession.call(.GET, driver.baseURL + "/status")
                return ((status?["value"] as? [String: Any])?["ready"] as? Bool) == true
            }
        } catch {
            await driver.stop()
            throw error
        }
        return driver
    }

    /// Opens a headless browser with a window of `width` × `height` pixels that records every
    /// console message.
    public func session(width: Int = 1400, height: Int = 1000) async throws -> WebDriverSession {
        try await WebDriverSession.create(driver: baseURL, width: width, height: height)
    }

    /// Stops the driver (the browsers it started end with it) and waits for it to exit.
    public func stop() async {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        while process.isRunning { try? await Task.sleep(for: .milliseconds(10)) }
    }
}
