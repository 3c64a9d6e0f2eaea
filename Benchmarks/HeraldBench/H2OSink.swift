import Foundation
import HeraldSimulators

/// h2o over TLS with an mruby handler that reads the body and answers 200 with the request's
/// `apns-id`: an APNs-shaped sink that costs almost nothing per request.
struct H2OSink {
    let process: ChildProcess
    let port: Int
    let configFile: String

    static func start(directory: String, authority: SimulatorCertificateAuthority) throws -> H2OSink {
        let port = try freePort()
        let config = directory + "/h2o.conf"
        try """
            num-threads: 1
            http2-max-concurrent-requests-per-connection: 1000
            listen:
              host: 127.0.0.1
              port: \(port)
              ssl:
                certificate-file: \(authority.serverCertificateFile!)
                key-file: \(authority.serverPrivateKeyFile!)
            hosts:
              default:
                paths:
                  /:
                    mruby.handler: |
                      Proc.new do |env|
                        input = env["rack.input"]
                        input.read if input
                        [200, {"apns-id" => env["HTTP_APNS_ID"].to_s}, []]
                      end
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let process = try ChildProcess.start("/usr/bin/h2o", ["-c", config], log: directory + "/h2o.log")
        // Wait for the port to accept connections.
        for _ in 0..<100 {
            let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = UInt16(port).bigEndian
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            close(socket)
            if connected { return H2OSink(process: process, port: port, configFile: config) }
            usleep(100_000)
        }
        H2OSink(process: process, port: port, configFile: config).stop()
        throw H2OError(message: "h2o did not start; see \(directory)/h2o.log")
    }

    /// Kills h2o and its workers: its graceful shutdown can wait indefinitely, and its workers
    /// outlive the master, so everything started with this configuration file is killed.
    func stop() {
        let pkill = Process()
        pkill.executableURL = URL(fileURLWithPath: "/usr/bin/pkill")
        pkill.arguments = ["-KILL", "-f", configFile]
        try? pkill.run()
        ChildProcess.waitForExit(pkill)
        ChildProcess.waitForExit(process.process)
    }
}

struct H2OError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// h2load sending the APNs-shaped request Herald sends.
enum H2Load {
    /// Returns the measured requests per second.
    static func run(port: Int, requests: Int, caFile: String) throws -> Double {
        let body = FileManager.default.temporaryDirectory.appendingPathComponent("h2load-body.json").path
        try #"{"aps":{"alert":"Benchmark"},"n":"1"}"#.write(toFile: body, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/h2load")
        process.arguments = [
            "-n", "\(requests)", "-c", "4", "-m", "100", "-t", "1",
            "-d", body,
            "-H", "apns-topic: com.example.bench", "-H", "apns-push-type: alert", "-H", "apns-priority: 10",
            "-H", "apns-id: 123e4567-e89b-12d3-a456-426614174000", "-H", "content-type: application/json",
            "-H", "authorization: bearer eyJhbGciOiJFUzI1NiIsImtpZCI6IkJFTkNIS0VZMDEifQ.e30.c2lnbmF0dXJl",
            "https://127.0.0.1:\(port)/3/device/\(String(repeating: "ab", count: 32))",
        ]
        // A file, not a pipe: h2load's output then never blocks it, whatever its size.
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("h2load.log").path
        FileManager.default.createFile(atPath: log, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        ChildProcess.waitForExit(process)
        try handle.close()
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        // "finished in 1.23s, 162601.63 req/s, ..."
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("finished in") }),
            let rate = line.split(separator: ",").dropFirst().first?.trimmingCharacters(in: .whitespaces).split(separator: " ").first,
            let value = Double(rate)
        else { throw H2OError(message: "cannot read h2load's output:\n\(output)") }
        return value
    }
}
