/// A WebDriver command that failed, or a browser that could not be started.
public struct WebDriverError: Error, CustomStringConvertible {
    /// What went wrong, with the driver's own message when it sent one.
    public var message: String

    /// Creates the error.
    public init(message: String) {
        self.message = message
    }

    public var description: String { "WebDriver: \(message)" }
}
