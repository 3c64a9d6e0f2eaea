import Foundation

/// Temporary directories for tests, all under one folder of this process that is removed at exit,
/// so that test runs do not leave a directory behind per test (they had left tens of thousands).
public enum TemporaryDirectory {
    /// A new empty temporary directory, removed with everything in it when the process exits.
    public static func make() -> String {
        let path = (root as NSString).appendingPathComponent(UUID().uuidString)
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// The folder of this process's temporary directories, created on first use.
    private static let root: String = {
        let path = (NSTemporaryDirectory() as NSString).appendingPathComponent("herald-test-\(getpid())-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: TemporaryDirectory.root) }
        return path
    }()
}
