/// What a configuration key holds, as far as the schema knows.
///
/// The loader uses the schema twice: to reject unknown keys, and to find which key an
/// environment variable means (names contain `_`, so variables cannot be split naively).
indirect enum KeyShape: Sendable {
    /// A scalar (string, number, boolean).
    case scalar
    /// A list of scalars; from the environment, comma-separated.
    case list
    /// A mapping with these fixed keys.
    case section([String: KeyShape])
    /// A mapping whose keys the user chooses (user names, API keys), each holding this shape.
    case entries(KeyShape)
    /// The `providers` mapping: names chosen by the user, keys given by each provider's kind.
    case providers
    /// Any value, checked by the front-end that reads it (the Matrix gateway's `fcm_options`, merged
    /// into FCM messages as it is); not overridable from the environment.
    case anything
}
